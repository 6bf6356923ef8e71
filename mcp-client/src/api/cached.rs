//! Lists and reads through the client's cache, when it has one: a fresh
//! entry is served; otherwise the server is asked, and its answer kept
//! as long as its hints allow (2026-07-28 answers only).

use std::sync::Mutex;

use mcp_core::{ReadResourceResult, methods};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{typed, value};
use crate::cache::{Cache, Hints, Kind};
use crate::{Client, Era, Error};

impl Client {
    /// The cache, if the client has one and the era carries hints.
    fn hinted_cache(&self) -> Option<&Cache> {
        self.session.cache.as_deref().filter(|_| self.session.era() == Some(Era::Stateless))
    }

    /// Every item of a paged list, its pages merged; through the cache.
    pub(crate) async fn list_all<T: DeserializeOwned>(&self, method: &str, key: &str) -> Result<Vec<T>, Error> {
        let cached = match (self.hinted_cache(), Kind::of(method)) {
            (Some(cache), Some(kind)) => cache.key(kind, method, "").await.map(|entry| (cache, entry)),
            _ => None,
        };
        let Some((cache, entry)) = cached else {
            return futures_util::TryStreamExt::try_collect(self.pages(method, key)).await;
        };
        if let Some(kept) = cache.get(&entry).await
            && let Ok(items) = serde_json::from_str::<Vec<T>>(&kept)
        {
            return Ok(items);
        }
        let asked = tokio::time::Instant::now();
        let hints = Mutex::new(Hints::default());
        let items: Vec<Value> =
            futures_util::TryStreamExt::try_collect(self.pages_hinted(method, key, Some(&hints))).await?;
        let hints = *hints.lock().unwrap_or_else(|e| e.into_inner());
        let text = Value::Array(items).to_string();
        let typed: Vec<T> =
            serde_json::from_str(&text).map_err(|e| Error::protocol(format!("{method}'s {key}: {e}")))?;
        cache.put(&entry, text, hints, asked).await;
        Ok(typed)
    }

    /// `resources/read`, through the cache.
    pub(super) async fn cached_read(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        let params = json!({ "uri": uri });
        let cache = match self.hinted_cache() {
            Some(cache) => cache.key(Kind::Reads, methods::RESOURCES_READ, uri).await.map(|entry| (cache, entry)),
            None => None,
        };
        let Some((cache, entry)) = cache else {
            return typed(&self.request_text(methods::RESOURCES_READ, params).await?);
        };
        if let Some(kept) = cache.get(&entry).await
            && let Ok(result) = serde_json::from_str(&kept)
        {
            return Ok(result);
        }
        let asked = tokio::time::Instant::now();
        let text = self.request_text(methods::RESOURCES_READ, params).await?;
        let mut hints = Hints::default();
        hints.page(&value(&text)?);
        let result = typed(&text)?;
        cache.put(&entry, text.get().to_owned(), hints, asked).await;
        Ok(result)
    }
}
