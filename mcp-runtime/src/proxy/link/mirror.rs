//! The upstream mirrored: the shared connection kept up (opened again,
//! with backoff, after it ends), the upstream's lists read into this
//! server's catalogs and read again when it says one changed, and its
//! resource updates passed on to this server's subscribers.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use futures_util::StreamExt;
use mcp_core::{Notification, methods};
use mcp_runtime_client::{Client, Era, Error as ClientError};
use serde_json::Value;

use super::{Link, lock};
use crate::component::{Catalog, Kind};
use crate::prompts::Prompt;
use crate::proxy::forward::{ProxiedPrompt, ProxiedResource, ProxiedTool};
use crate::resources::Resource;
use crate::tools::Tool;

/// How many of an upstream's resources are subscribed to, for updates.
const MAX_SUBSCRIBED: usize = 256;
/// The longest wait between attempts to reach an upstream that is down.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

impl Link {
    /// `list`, within the connect timeout: an upstream that takes a
    /// connection and never lists must not hold this server's first
    /// answer (or a client's `tools/list`) for longer.
    async fn bounded<T>(&self, list: impl Future<Output = Result<T, ClientError>>) -> Result<T, ClientError> {
        tokio::time::timeout(self.connect_timeout, list)
            .await
            .unwrap_or(Err(ClientError::Timeout(self.connect_timeout)))
    }

    /// Mirror the lists `client`'s server offers now.
    async fn sync(self: &Arc<Self>, client: &Client, tools: bool, resources: bool, prompts: bool) {
        let offers = client.server_capabilities();
        self.completes.store(offers.completions.is_some(), Ordering::Relaxed);
        let extensions = offers.other.get("extensions").and_then(Value::as_object);
        let tasks =
            extensions.is_some_and(|e| e.contains_key(mcp_core::task::EXTENSION)) || offers.other.contains_key("tasks");
        self.offers_tasks.store(tasks, Ordering::Relaxed);
        let (has_tools, has_resources, has_prompts) =
            (offers.tools.is_some(), offers.resources.is_some(), offers.prompts.is_some());
        // Every name the upstream offers, to check the filter's against
        // once all lists were read.
        let mut seen: Option<BTreeSet<String>> = (tools && resources && prompts).then(BTreeSet::new);
        let mut see = |names: &mut dyn Iterator<Item = &str>, ok: bool| match (&mut seen, ok) {
            (Some(seen), true) => seen.extend(names.map(str::to_owned)),
            _ => seen = None,
        };
        if tools {
            let listed = if has_tools { self.bounded(client.list_tools()).await } else { Ok(Vec::new()) };
            see(&mut listed.iter().flatten().map(|t| t.name.as_str()), listed.is_ok());
            let sources = listed.map(|listed| {
                let kept = listed.into_iter().filter(|t| self.filter.keeps(&[&t.name], t.meta.as_ref()));
                kept.map(|t| Arc::new(ProxiedTool::new(self, self.rename(&t.name), t)) as Arc<dyn Tool>).collect()
            });
            self.mirror(&self.targets.tools, sources, "tools");
        }
        if resources {
            let listed = if has_resources { self.bounded(client.list_resources()).await } else { Ok(Vec::new()) };
            see(&mut listed.iter().flatten().flat_map(|r| [r.uri.as_str(), r.name.as_str()]), listed.is_ok());
            let sources = listed.map(|listed| {
                let kept = listed.into_iter().filter(|r| self.filter.keeps(&[&r.uri, &r.name], r.meta.as_ref()));
                kept.map(|r| Arc::new(ProxiedResource::fixed(self, r)) as Arc<dyn Resource>).collect()
            });
            if let Some(kept) = self.mirror(&self.targets.statics, sources, "resources") {
                *lock(&self.statics) = kept;
            }
            let listed =
                if has_resources { self.bounded(client.list_resource_templates()).await } else { Ok(Vec::new()) };
            see(&mut listed.iter().flatten().flat_map(|t| [t.uri_template.as_str(), t.name.as_str()]), listed.is_ok());
            let sources = listed.map(|listed| {
                let kept =
                    listed.into_iter().filter(|t| self.filter.keeps(&[&t.uri_template, &t.name], t.meta.as_ref()));
                kept.map(|t| Arc::new(ProxiedResource::template(self, t)) as Arc<dyn Resource>).collect()
            });
            self.mirror(&self.targets.templates, sources, "templates");
        }
        if prompts {
            let listed = if has_prompts { self.bounded(client.list_prompts()).await } else { Ok(Vec::new()) };
            see(&mut listed.iter().flatten().map(|p| p.name.as_str()), listed.is_ok());
            let sources = listed.map(|listed| {
                let kept = listed.into_iter().filter(|p| self.filter.keeps(&[&p.name], p.meta.as_ref()));
                kept.map(|p| Arc::new(ProxiedPrompt::new(self, self.rename(&p.name), p)) as Arc<dyn Prompt>).collect()
            });
            self.mirror(&self.targets.prompts, sources, "prompts");
        }
        if let Some(seen) = seen
            && !self.filter_checked.swap(true, Ordering::Relaxed)
        {
            for name in self.filter.named().filter(|name| !seen.contains(*name)) {
                tracing::warn!(upstream = %self.label, name, "the mount's `include`/`exclude` names something this server does not offer");
            }
        }
    }

    /// Make `sources` (the upstream's `what`, as listed) what this mount
    /// offers in `catalog`, or keep what it offered and warn if they could
    /// not be listed. The keys it serves now, if they were listed.
    fn mirror<K: Kind>(
        &self,
        catalog: &Catalog<K>,
        sources: Result<Vec<Arc<K::Source>>, ClientError>,
        what: &str,
    ) -> Option<BTreeSet<String>> {
        match sources {
            Ok(sources) => Some(catalog.replace(self.rank, sources, &self.label)),
            Err(error) => {
                tracing::warn!(upstream = %self.label, %error, "its {what} could not be listed");
                None
            }
        }
    }

    /// The upstream URIs of the mirrored resources, to subscribe to.
    fn subscribable(&self, client: &Client) -> Vec<String> {
        let offers = client.server_capabilities();
        if offers.resources.as_ref().is_none_or(|r| r.subscribe != Some(true)) {
            return Vec::new();
        }
        lock(&self.statics).iter().filter_map(|uri| self.names.upstream_uri(uri)).take(MAX_SUBSCRIBED).collect()
    }

    /// Act on one of the upstream's notifications.
    async fn on_notification(self: &Arc<Self>, client: &Client, notification: Notification) {
        match notification.method.as_str() {
            methods::TOOLS_LIST_CHANGED => self.sync(client, true, false, false).await,
            methods::RESOURCES_LIST_CHANGED => self.sync(client, false, true, false).await,
            methods::PROMPTS_LIST_CHANGED => self.sync(client, false, false, true).await,
            methods::RESOURCES_UPDATED => {
                let uri = notification.params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str);
                if let Some(uri) = uri {
                    self.targets.announcer.updated(&self.names.uri(uri));
                }
            }
            _ => {}
        }
    }
}

/// Keep the shared connection up and the lists mirrored, for as long as
/// the link lives.
pub(super) async fn mirror(link: Weak<Link>) {
    let mut backoff = Duration::from_millis(250);
    loop {
        let Some(strong) = link.upgrade() else { return };
        let client = match strong.shared.client(&strong).await {
            Ok((client, _)) => client,
            Err(error) => {
                tracing::warn!(upstream = %strong.label, %error, retry_in = ?backoff, "the mounted server cannot be reached");
                strong.ready.send_replace(true);
                drop(strong);
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
                continue;
            }
        };
        backoff = Duration::from_millis(250);
        let negotiated = client.negotiated();
        strong.stateful.store(negotiated.era == Era::Handshake, Ordering::Relaxed);
        *super::lock(&strong.listed) = mcp_core::ProtocolVersion::parse(&negotiated.version);
        strong.sync(&client, true, true, true).await;
        strong.ready.send_replace(true);
        let uris = strong.subscribable(&client);
        let watched = match client.watch(&uris).await {
            Ok(watched) => watched.boxed(),
            Err(error) => {
                tracing::debug!(upstream = %strong.label, %error, "no resource updates from the mounted server");
                client.notifications().boxed()
            }
        };
        drop(strong);
        let mut watched = watched;
        loop {
            tokio::select! {
                next = watched.next() => match (next, link.upgrade()) {
                    (Some(notification), Some(strong)) => strong.on_notification(&client, notification).await,
                    (None, _) => break,
                    (_, None) => return,
                },
                why = client.ended() => {
                    tracing::warn!(upstream = ?link.upgrade().map(|l| l.label.clone()), %why, "the mounted server's connection ended; reconnecting");
                    break;
                }
                () = renewed(&link) => {
                    backoff = Duration::ZERO;
                    break;
                }
            }
        }
        match link.upgrade() {
            Some(strong) => strong.shared.reset().await,
            None => return,
        }
        tokio::time::sleep(backoff).await;
        backoff = backoff.max(Duration::from_millis(250));
    }
}

/// Resolves when the link's shared connection was closed on purpose (never
/// once the link is gone).
async fn renewed(link: &Weak<Link>) {
    match link.upgrade() {
        Some(strong) => {
            let renew = strong.renew.clone();
            drop(strong);
            renew.notified().await
        }
        None => std::future::pending().await,
    }
}
