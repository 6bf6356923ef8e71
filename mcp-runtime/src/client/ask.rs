//! The typed questions a handler asks the client: a form or a URL to the
//! user (elicitation), a message from the host's model (sampling), and the
//! client's roots. Each is one `.await` in every protocol era: a request to
//! the client in the handshake versions, an input request of a multi-round
//! result in 2026-07-28 (see [`rounds`](super::rounds)).

use std::future::{Future, IntoFuture};
use std::marker::PhantomData;

use mcp_core::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult, ListRootsResult, ModelHint,
    ModelPreferences, Role, Root, SamplingContent, SamplingMessage, ToolChoice, methods,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Client, ClientError};
use crate::schema_check::Schema;
use crate::tools::BoxFuture;
use crate::tools::media::{Audio, Image};

/// What the user did with an elicitation: accepted it (with the form's
/// values, typed and checked against the form), declined it, or dismissed
/// it.
#[derive(Clone, Debug, PartialEq)]
pub enum Elicited<T> {
    /// The user submitted the form.
    Accept(T),
    /// The user said no.
    Decline,
    /// The user dismissed it without choosing.
    Cancel,
}

impl<T> Elicited<T> {
    /// The values, if the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicited::Accept(value) => Some(value),
            _ => None,
        }
    }
}

/// A question to the user, made by [`Context::elicit`](crate::Context::elicit);
/// `.await` it.
#[must_use = "a question is asked when it is awaited"]
pub struct Elicit<T> {
    client: Client,
    message: String,
    key: Option<String>,
    form: PhantomData<fn() -> T>,
}

impl<T> Elicit<T> {
    pub(crate) fn new(client: Client, message: String) -> Self {
        Elicit { client, message, key: None, form: PhantomData }
    }

    /// The key this question has among a multi-round request's input
    /// requests (2026-07-28). Without one it is named by its kind and its
    /// place among the handler's questions (`elicitation-1`, …).
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

impl<T: DeserializeOwned + JsonSchema + Send + 'static> IntoFuture for Elicit<T> {
    type Output = Result<Elicited<T>, ClientError>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let key = self.client.key(self.key, "elicitation");
        let client = self.client;
        let message = self.message;
        Box::pin(async move {
            let form = form_for::<T>()?;
            let validator = Schema::compile(&Value::Object(form.clone()))
                .map_err(|e| ClientError::InvalidRequest(format!("the form's schema does not compile: {e}")))?;
            let params = ElicitParams { message, requested_schema: Some(form), ..ElicitParams::default() };
            client
                .ask(key, methods::ELICITATION_CREATE, params, Some("elicitation"), move |result: ElicitResult| {
                    match result.action {
                        ElicitAction::Decline => Ok(Elicited::Decline),
                        ElicitAction::Cancel => Ok(Elicited::Cancel),
                        ElicitAction::Accept => {
                            let content = Value::Object(result.content.unwrap_or_default());
                            if let Some(problem) = validator.problems(&content).first() {
                                return Err(format!("the form's values do not fit it {problem}"));
                            }
                            serde_json::from_value(content).map(Elicited::Accept).map_err(|e| e.to_string())
                        }
                    }
                })
                .await
        })
    }
}

/// The form for `T`, or why `T` cannot be one.
fn form_for<T: JsonSchema>() -> Result<mcp_core::JsonObject, ClientError> {
    let raw = schemars::generate::SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>();
    mcp_core::form::requested_schema(&T::schema_name(), Value::from(raw)).map_err(ClientError::InvalidRequest)
}

/// A page the user is asked to open (2025-11-25 clients that declared
/// URL elicitation), made by [`Context::elicit_url`](crate::Context::elicit_url);
/// `.await` it. Accepting means the user agreed to open it, not that they
/// finished there.
#[must_use = "a question is asked when it is awaited"]
pub struct ElicitUrl {
    client: Client,
    params: ElicitParams,
    key: Option<String>,
}

impl ElicitUrl {
    pub(crate) fn new(client: Client, message: String, url: String) -> Self {
        let elicitation_id = crate::random::hex_id::<16>();
        let params = ElicitParams {
            mode: Some("url".into()),
            message,
            url: Some(url),
            elicitation_id: Some(elicitation_id),
            requested_schema: None,
        };
        ElicitUrl { client, params, key: None }
    }

    /// The key this question has among a multi-round request's input
    /// requests (see [`Elicit::key`]).
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

impl IntoFuture for ElicitUrl {
    type Output = Result<Elicited<()>, ClientError>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let key = self.client.key(self.key, "elicitation");
        let ElicitUrl { client, params, .. } = self;
        Box::pin(async move {
            let accepted = |result: ElicitResult| {
                Ok(match result.action {
                    ElicitAction::Accept => Elicited::Accept(()),
                    ElicitAction::Decline => Elicited::Decline,
                    ElicitAction::Cancel => Elicited::Cancel,
                })
            };
            client.ask(key, methods::ELICITATION_CREATE, params, Some("elicitation.url"), accepted).await
        })
    }
}

/// What to ask the host's model: a conversation and how to answer it.
/// Pass it to [`Context::sample`](crate::Context::sample).
///
/// ```
/// use mcp_runtime::{Sampling, protocol::Role};
///
/// let request = Sampling::user("Name three primes.")
///     .system("Answer in one line.")
///     .max_tokens(50)
///     .temperature(0.2)
///     .prefer_model("claude");
/// # let _ = request;
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Sampling {
    params: CreateMessageParams,
}

/// The most tokens asked for when the request does not say.
const DEFAULT_MAX_TOKENS: u32 = 1024;

impl Sampling {
    /// A conversation that starts with the user saying `text`.
    pub fn user(text: impl Into<String>) -> Self {
        Sampling::empty().message(Role::User, SamplingContent::text(text))
    }

    /// A conversation with no messages yet (add them with
    /// [`message`](Self::message)).
    pub fn empty() -> Self {
        Sampling { params: CreateMessageParams { max_tokens: DEFAULT_MAX_TOKENS, ..CreateMessageParams::default() } }
    }

    /// Add a message: text, an [`Image`], [`Audio`] or any
    /// [`SamplingContent`](mcp_core::SamplingContent).
    pub fn message(mut self, role: Role, content: impl Into<SamplingContent>) -> Self {
        self.params.messages.push(SamplingMessage { role, content: vec![content.into()] });
        self
    }

    /// A system prompt (the client may change or leave it out).
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.params.system_prompt = Some(prompt.into());
        self
    }

    /// The most tokens to generate (1024 unless set).
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.params.max_tokens = tokens;
        self
    }

    /// The sampling temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.params.temperature = Some(temperature);
        self
    }

    /// Stop generating at any of these.
    pub fn stop_sequences(mut self, stops: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.params.stop_sequences = Some(stops.into_iter().map(Into::into).collect());
        self
    }

    /// Prefer a model whose name contains `name` (a hint; hints given
    /// earlier come first).
    pub fn prefer_model(mut self, name: impl Into<String>) -> Self {
        let preferences = self.params.model_preferences.get_or_insert_with(ModelPreferences::default);
        preferences.hints.get_or_insert_with(Vec::new).push(ModelHint { name: Some(name.into()) });
        self
    }

    /// How much cost, speed and capability matter, each from 0 to 1.
    pub fn priorities(mut self, cost: f64, speed: f64, intelligence: f64) -> Self {
        let preferences = self.params.model_preferences.get_or_insert_with(ModelPreferences::default);
        preferences.cost_priority = Some(cost);
        preferences.speed_priority = Some(speed);
        preferences.intelligence_priority = Some(intelligence);
        self
    }

    /// Tools the model may call, and how (`"auto"`, `"required"` or
    /// `"none"`): for clients that declared `sampling.tools` (2025-11-25).
    pub fn tools(mut self, tools: Vec<mcp_core::Tool>, choice: &str) -> Self {
        self.params.tools = Some(tools);
        self.params.tool_choice = Some(ToolChoice { mode: choice.to_owned() });
        self
    }

    /// Provider-specific metadata.
    pub fn metadata(mut self, metadata: Value) -> Self {
        self.params.metadata = Some(metadata);
        self
    }

    /// The request's params as they go to the client.
    pub fn params(&self) -> &CreateMessageParams {
        &self.params
    }
}

impl From<Image> for SamplingContent {
    fn from(image: Image) -> SamplingContent {
        match mcp_core::Content::from(image) {
            mcp_core::Content::Image(media) => SamplingContent::Image(media),
            _ => unreachable!("an image is image content"),
        }
    }
}

impl From<Audio> for SamplingContent {
    fn from(audio: Audio) -> SamplingContent {
        match mcp_core::Content::from(audio) {
            mcp_core::Content::Audio(media) => SamplingContent::Audio(media),
            _ => unreachable!("audio is audio content"),
        }
    }
}

/// A request to the host's model, made by
/// [`Context::sample`](crate::Context::sample); `.await` it.
#[must_use = "a question is asked when it is awaited"]
pub struct Sample {
    client: Client,
    sampling: Sampling,
    key: Option<String>,
}

impl Sample {
    pub(crate) fn new(client: Client, sampling: Sampling) -> Self {
        Sample { client, sampling, key: None }
    }

    /// The key this question has among a multi-round request's input
    /// requests (see [`Elicit::key`]).
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

impl IntoFuture for Sample {
    type Output = Result<CreateMessageResult, ClientError>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let key = self.client.key(self.key, "sampling");
        let Sample { client, sampling, .. } = self;
        let capability = if sampling.params.tools.is_some() { "sampling.tools" } else { "sampling" };
        Box::pin(async move {
            client.ask(key, methods::SAMPLING_CREATE_MESSAGE, sampling.params, Some(capability), Ok).await
        })
    }
}

/// The client's roots, asked by [`Context::roots`](crate::Context::roots);
/// `.await` it.
#[must_use = "a question is asked when it is awaited"]
pub struct ListRoots {
    client: Client,
    key: Option<String>,
}

impl ListRoots {
    pub(crate) fn new(client: Client) -> Self {
        ListRoots { client, key: None }
    }

    /// The key this question has among a multi-round request's input
    /// requests (see [`Elicit::key`]).
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

impl IntoFuture for ListRoots {
    type Output = Result<Vec<Root>, ClientError>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let key = self.client.key(self.key, "roots");
        let client = self.client;
        Box::pin(async move {
            // A session keeps the list until the client says it changed.
            let cache = client.peer.as_ref().filter(|_| client.rounds.is_none()).map(|p| p.roots.clone());
            if let Some(roots) = cache.as_ref().and_then(|c| c.lock().unwrap_or_else(|e| e.into_inner()).clone()) {
                return Ok(roots);
            }
            let empty = serde_json::Map::new();
            let roots =
                client.ask(key, methods::ROOTS_LIST, empty, Some("roots"), |r: ListRootsResult| Ok(r.roots)).await?;
            if let Some(cache) = cache {
                *cache.lock().unwrap_or_else(|e| e.into_inner()) = Some(roots.clone());
            }
            Ok(roots)
        })
    }
}

/// Run `work` once across a multi-round request's rounds (see
/// [`Context::once`](crate::Context::once)).
pub(crate) async fn once<T, F>(client: &Client, name: &str, work: F) -> T
where
    T: serde::Serialize + DeserializeOwned,
    F: Future<Output = T>,
{
    let Some(rounds) = &client.rounds else { return work.await };
    if let Some(kept) = rounds.kept(name).and_then(|v| serde_json::from_value(v).ok()) {
        return kept;
    }
    let value = work.await;
    match serde_json::to_value(&value) {
        Ok(json) => rounds.keep(name, json),
        Err(e) => tracing::warn!(name, error = %e, "a value kept across rounds could not be serialized"),
    }
    value
}
