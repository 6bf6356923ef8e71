//! Where an operation's HTTP request goes: over the network with a
//! `reqwest::Client`, or into an axum `Router` in this process (a tower
//! service called with `oneshot`: no socket, no HTTP encoding). Either way
//! the answer is read up to a bound and the request is bounded by a
//! deadline; dropping the future drops the request.

use std::time::Duration;

use reqwest::StatusCode;

/// What sends an API's requests.
#[derive(Clone)]
pub(crate) enum Backend {
    /// Over the network.
    Client(reqwest::Client),
    /// An axum router in this process.
    #[cfg(feature = "http")]
    Router(axum::Router),
}

/// The API's answer, read up to the bound.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    /// The `content-type`, or empty.
    pub(crate) media: String,
    pub(crate) body: Vec<u8>,
    /// The body went on past the bound (and `body` holds the bound's worth).
    pub(crate) cut: bool,
}

/// Why no answer came.
pub(crate) enum Failure {
    /// Nothing within the deadline.
    Timeout,
    /// Not reached, or the answer broke off; the text names no URL (a
    /// query may carry a key).
    Broken(String),
}

impl Backend {
    /// Send `request` and read its answer, at most `max` bytes of it.
    pub(crate) async fn send(
        &self,
        request: reqwest::Request,
        timeout: Duration,
        max: usize,
    ) -> Result<Answer, Failure> {
        match self {
            Backend::Client(client) => over_network(client, request, timeout, max).await,
            #[cfg(feature = "http")]
            Backend::Router(router) => match tokio::time::timeout(timeout, in_process(router, request, max)).await {
                Ok(answer) => answer,
                Err(_) => Err(Failure::Timeout),
            },
        }
    }
}

async fn over_network(
    client: &reqwest::Client,
    mut request: reqwest::Request,
    timeout: Duration,
    max: usize,
) -> Result<Answer, Failure> {
    *request.timeout_mut() = Some(timeout);
    let mut response = match client.execute(request).await {
        Ok(response) => response,
        Err(error) if error.is_timeout() => return Err(Failure::Timeout),
        Err(error) => return Err(Failure::Broken(format!("the API could not be reached: {}", error.without_url()))),
    };
    let mut answer =
        Answer { status: response.status(), media: media(response.headers()), body: Vec::new(), cut: false };
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if !answer.take(&chunk, max) {
                    break;
                }
            }
            Ok(None) => break,
            Err(error) if error.is_timeout() => return Err(Failure::Timeout),
            Err(error) => {
                return Err(Failure::Broken(format!("the API's answer broke off: {}", error.without_url())));
            }
        }
    }
    Ok(answer)
}

/// `request` through `router` as axum receives a request from hyper:
/// the method, the path and query, the headers and the body's bytes.
#[cfg(feature = "http")]
async fn in_process(router: &axum::Router, request: reqwest::Request, max: usize) -> Result<Answer, Failure> {
    use futures_util::StreamExt;
    use tower::ServiceExt;

    let url = request.url();
    let target = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    };
    let mut builder = axum::http::Request::builder().method(request.method().clone()).uri(target);
    if let Some(headers) = builder.headers_mut() {
        headers.extend(request.headers().iter().map(|(name, value)| (name.clone(), value.clone())));
    }
    let body = request.body().and_then(reqwest::Body::as_bytes).map(<[u8]>::to_vec).unwrap_or_default();
    let http_request = builder
        .body(axum::body::Body::from(body))
        .map_err(|e| Failure::Broken(format!("the request could not be made: {e}")))?;
    let response = match router.clone().oneshot(http_request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let mut answer =
        Answer { status: response.status(), media: media(response.headers()), body: Vec::new(), cut: false };
    let mut stream = response.into_body().into_data_stream();
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(chunk) => {
                if !answer.take(&chunk, max) {
                    break;
                }
            }
            Err(error) => return Err(Failure::Broken(format!("the API's answer broke off: {error}"))),
        }
    }
    Ok(answer)
}

impl Answer {
    /// Add `chunk` to the body; `false` once the bound is reached.
    fn take(&mut self, chunk: &[u8], max: usize) -> bool {
        if self.body.len() + chunk.len() > max {
            let room = max - self.body.len();
            self.body.extend_from_slice(&chunk[..room]);
            self.cut = true;
            return false;
        }
        self.body.extend_from_slice(chunk);
        true
    }
}

fn media(headers: &reqwest::header::HeaderMap) -> String {
    headers.get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned()
}
