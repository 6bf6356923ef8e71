//! Paged lists (`tools/list`, `resources/list`, …): gathered into one
//! `Vec` or streamed page by page, within the client's bounds on pages,
//! items, bytes and time, and never following a cursor twice.

use std::collections::HashSet;
use std::time::Duration;

use futures_util::Stream;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::value;
use crate::cache::Hints;
use crate::{Client, Error};

impl Client {
    /// Every item of a paged list (`tools/list`, `resources/list`, …) as
    /// the server sent it, `key` naming the array in each page (`"tools"`):
    /// for a list the typed methods do not cover, or to see all that they
    /// leave out. Bounded as every list is
    /// ([`ClientBuilder::max_list_pages`](crate::ClientBuilder::max_list_pages)
    /// and the settings beside it), and a page without the array is a
    /// protocol error.
    pub async fn list_values(&self, method: &str, key: &str) -> Result<Vec<Value>, Error> {
        self.list_all(method, key).await
    }

    /// A paged list's items, page by page, within the client's bounds:
    /// its pages, its items, its bytes across pages (a list holds no more
    /// than one message may), the time the server takes to answer them,
    /// and no cursor twice.
    pub(super) fn pages<'a, T: DeserializeOwned + 'a>(
        &'a self,
        method: &'a str,
        key: &'a str,
    ) -> impl Stream<Item = Result<T, Error>> + 'a {
        self.pages_hinted(method, key, None)
    }

    /// [`pages`](Self::pages), taking in each page's cache hints.
    pub(super) fn pages_hinted<'a, T: DeserializeOwned + 'a>(
        &'a self,
        method: &'a str,
        key: &'a str,
        hints: Option<&'a std::sync::Mutex<Hints>>,
    ) -> impl Stream<Item = Result<T, Error>> + 'a {
        let limits = self.session.limits;
        let budget = limits.list_timeout.unwrap_or(limits.timeout);
        let start = Paging {
            items: Vec::new().into_iter(),
            cursor: None,
            due: true,
            seen: HashSet::new(),
            pages: 0,
            items_seen: 0,
            bytes: 0,
            left: budget,
        };
        futures_util::stream::try_unfold(start, move |mut paging| async move {
            loop {
                if let Some(item) = paging.items.next() {
                    return Ok(Some((item, paging)));
                }
                if !paging.due {
                    return Ok(None);
                }
                if paging.pages >= limits.list_pages {
                    return Err(Error::Limit(format!(
                        "`{method}` has more than {} pages (ClientBuilder::max_list_pages)",
                        limits.list_pages
                    )));
                }
                let params = match &paging.cursor {
                    Some(cursor) => json!({ "cursor": cursor }),
                    None => json!({}),
                };
                let started = tokio::time::Instant::now();
                let Ok(page) = tokio::time::timeout(paging.left, self.request_text(method, params)).await else {
                    return Err(Error::Limit(format!(
                        "`{method}` took longer than {budget:?} over {} pages (ClientBuilder::list_timeout)",
                        paging.pages + 1
                    )));
                };
                let page = page?;
                paging.left = paging.left.saturating_sub(started.elapsed());
                paging.pages += 1;
                paging.bytes = paging.bytes.saturating_add(page.get().len());
                if paging.bytes > limits.max_message_bytes {
                    return Err(Error::Limit(format!(
                        "`{method}`'s pages hold more than {} (ClientBuilder::max_message_bytes)",
                        crate::error::bytes(limits.max_message_bytes)
                    )));
                }
                let mut page = value(&page)?;
                if let Some(hints) = hints {
                    hints.lock().unwrap_or_else(|e| e.into_inner()).page(&page);
                }
                let list = page
                    .get_mut(key)
                    .map(Value::take)
                    .ok_or_else(|| Error::protocol(format!("the answer to `{method}` has no `{key}` array")))?;
                paging.items_seen = paging.items_seen.saturating_add(list.as_array().map_or(0, Vec::len));
                if paging.items_seen > limits.list_items {
                    return Err(Error::Limit(format!(
                        "`{method}` has more than {} items (ClientBuilder::max_list_items)",
                        limits.list_items
                    )));
                }
                let list: Vec<T> =
                    serde_json::from_value(list).map_err(|e| Error::protocol(format!("{method}'s {key}: {e}")))?;
                let next = page.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
                if let Some(next) = &next
                    && !paging.seen.insert(next.clone())
                {
                    return Err(Error::protocol(format!(
                        "`{method}` gave the cursor {next:?} a second time: its pages would never end"
                    )));
                }
                paging.due = next.is_some();
                paging.cursor = next;
                paging.items = list.into_iter();
            }
        })
    }
}

/// Where the reading of a paged list is.
struct Paging<T> {
    /// What is left of the last page.
    items: std::vec::IntoIter<T>,
    /// The cursor of the next page.
    cursor: Option<String>,
    /// Whether a next page is due.
    due: bool,
    /// Every cursor given so far.
    seen: HashSet<String>,
    pages: usize,
    items_seen: usize,
    bytes: usize,
    /// What is left of the list's time.
    left: Duration,
}
