//! How a built server is served: stdio, the transport chosen at start,
//! a byte stream, an in-memory client; on a runtime of its own or the
//! caller's.

use tokio::io::{AsyncRead, AsyncWrite};

use super::Server;
use super::launch::{Launch, Offer};
use crate::error::Error;
use crate::logging;
use crate::transport::connection;
use crate::transport::memory::{self, InMemoryClient};
use crate::transport::{Lines, Transport, stdio};

impl Server {
    /// The level of the logs the server writes on stderr when it installs
    /// its logger (`serve_stdio`, `serve_http` and the `run`s do, unless
    /// the program installed one of its own): `info` by default, which
    /// logs start-up and incidents, not each session or request. The
    /// environment wins when it names a level (`MCP_LOG=debug`, or a plain
    /// level in `RUST_LOG`), so whoever runs the server can still turn it
    /// up without a rebuild.
    ///
    /// ```no_run
    /// use mcp_runtime::{Server, logging::LevelFilter};
    ///
    /// fn main() -> Result<(), mcp_runtime::Error> {
    ///     Server::new("quiet", "1.0.0").log_level(LevelFilter::WARN).run_blocking()
    /// }
    /// ```
    pub fn log_level(mut self, level: impl Into<logging::LevelFilter>) -> Self {
        self.log_level = level.into();
        self
    }

    /// Serve one client on stdin/stdout until stdin closes. Stdout is
    /// reserved for the protocol from this call on (stray prints, including
    /// those of child processes, go to stderr; anything printed *before* this
    /// call has already reached the client, so print banners with
    /// `eprintln!`), logs go to stderr, and on EOF running calls finish and
    /// every response is flushed.
    pub async fn serve_stdio(self) -> Result<(), Error> {
        logging::init_stderr_at(self.log_level);
        let (shared, limits) = self.build()?;
        shared.ready().await;
        let (stdin, stdout) = stdio::streams(&shared.info.name)?;
        tracing::info!(
            server = %shared.info.name,
            version = %shared.info.version,
            tools = shared.tools.current().entries().len(),
            "serving MCP over stdio"
        );
        connection::serve(Lines::new(stdin, stdout), Some("pipe"), shared, limits).await?;
        Ok(())
    }

    /// [`serve_stdio`](Self::serve_stdio) on a single-threaded runtime of
    /// its own, for a `main` with no async runtime set up (and no `tokio`
    /// dependency). One thread serves the one client with no hand-offs
    /// between threads: a call costs a fifth of what it does on a
    /// multi-threaded runtime (BENCHMARKS.md). Tools still run
    /// concurrently while they wait; a synchronous tool holds the thread,
    /// so keep slow work in `tokio::task::spawn_blocking`.
    ///
    /// ```no_run
    /// fn main() -> Result<(), mcp_runtime::Error> {
    ///     mcp_runtime::Server::new("adder", "1.0.0").run_stdio()
    /// }
    /// ```
    ///
    /// Inside an async runtime, call `serve_stdio().await` instead; this
    /// returns an error there rather than blocking a runtime thread.
    ///
    /// It reads the command line as [`run`](Self::run) does, less `--http`:
    /// `--help` and `--version` are answered, any other flag refused.
    pub fn run_stdio(mut self) -> Result<(), Error> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(Error::Runtime(std::io::Error::other(
                "`run_stdio` starts its own runtime and cannot run inside one; use `serve_stdio().await`",
            )));
        }
        match self.launch(Offer::StdioOnly).map_err(Error::Launch)? {
            Launch::Help => return self.print(self.usage(Offer::StdioOnly)),
            Launch::Version => return self.print(self.version_line()),
            Launch::Stdio | Launch::Http { .. } => {}
        }
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(Error::Runtime)?;
        runtime.block_on(self.serve_stdio())
    }

    /// Serve over the transport chosen when the process is started: stdio
    /// (as [`serve_stdio`](Self::serve_stdio)) unless the command line has
    /// `--http ADDR` (or `--http=ADDR`), or the environment has
    /// `MCP_TRANSPORT=http`, which serves Streamable HTTP (as
    /// [`serve_http`](Self::serve_http)) at `MCP_HTTP_ADDR`, `127.0.0.1:8000`
    /// if unset. `--help` and `--version` print the usage or the version
    /// and return; any other flag is an error showing the usage (a program
    /// with flags of its own hands over the rest with [`args`](Self::args)).
    ///
    /// ```no_run
    /// #[tokio::main]
    /// async fn main() -> Result<(), mcp_runtime::Error> {
    ///     // `my-server` for stdio, `my-server --http 127.0.0.1:3001` for HTTP.
    ///     mcp_runtime::Server::new("my-server", "1.0.0").run().await
    /// }
    /// ```
    ///
    /// One binary thus serves a client that spawns it and a remote one,
    /// and `cargo mcp run --http ADDR` serves it over HTTP unchanged. A
    /// missing address or an unknown `MCP_TRANSPORT` is an error, and so is
    /// HTTP when this crate's `http` feature is off.
    pub async fn run(mut self) -> Result<(), Error> {
        match self.launch(Offer::Both).map_err(Error::Launch)? {
            Launch::Stdio => self.serve_stdio().await,
            Launch::Http { addr, asked_by } => self.serve_http_launched(&addr, asked_by).await,
            Launch::Help => self.print(self.usage(Offer::Both)),
            Launch::Version => self.print(self.version_line()),
        }
    }

    /// Answers `--help` or `--version` on stdout, which is the person's
    /// here: no client is on the other end.
    fn print(&self, text: String) -> Result<(), Error> {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", text.trim_end()).and_then(|()| out.flush()).map_err(Error::Runtime)
    }

    /// The [`HttpOptions`](crate::transport::HttpOptions) [`run`](Self::run)
    /// and [`run_blocking`](Self::run_blocking) serve Streamable HTTP with
    /// when the command line or the environment asks for it (the defaults
    /// otherwise): the hosts a container is reached by, a token, a route
    /// of your own, without giving up the choice of transport at start.
    ///
    /// ```no_run
    /// use mcp_runtime::{Server, axum::routing::get, transport::HttpOptions};
    ///
    /// fn main() -> Result<(), mcp_runtime::Error> {
    ///     let http = HttpOptions::new().allowed_hosts(["mcp"]).route("/health", get(|| async { "ok" }));
    ///     Server::new("app", "1.0.0").http_options(http).run_blocking()
    /// }
    /// ```
    #[cfg(feature = "http")]
    pub fn http_options(mut self, options: crate::transport::HttpOptions) -> Self {
        self.http_options = Some(options);
        self
    }

    #[cfg(feature = "http")]
    async fn serve_http_launched(mut self, addr: &str, _asked_by: &str) -> Result<(), Error> {
        let options = self.http_options.take().unwrap_or_default();
        self.serve_http_with(addr, options).await
    }

    #[cfg(not(feature = "http"))]
    async fn serve_http_launched(self, addr: &str, asked_by: &str) -> Result<(), Error> {
        Err(Error::Launch(format!(
            "{asked_by} asks for Streamable HTTP at {addr}, but this server was built without the `http` feature \
             of mcp-runtime; enable it (it is on by default) or serve stdio"
        )))
    }

    /// [`run`](Self::run) on a runtime of its own, for a `main` with no
    /// async runtime (as [`run_stdio`](Self::run_stdio) is for
    /// [`serve_stdio`](Self::serve_stdio)): single-threaded for stdio, as
    /// `run_stdio`; multi-threaded for HTTP, which serves many clients.
    ///
    /// ```no_run
    /// fn main() -> Result<(), mcp_runtime::Error> {
    ///     mcp_runtime::Server::new("adder", "1.0.0").run_blocking()
    /// }
    /// ```
    pub fn run_blocking(mut self) -> Result<(), Error> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(Error::Runtime(std::io::Error::other(
                "`run_blocking` starts its own runtime and cannot run inside one; use `run().await`",
            )));
        }
        match self.launch(Offer::Both).map_err(Error::Launch)? {
            Launch::Stdio => {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
                runtime.map_err(Error::Runtime)?.block_on(self.serve_stdio())
            }
            Launch::Http { addr, asked_by } => {
                let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build();
                runtime.map_err(Error::Runtime)?.block_on(self.serve_http_launched(&addr, asked_by))
            }
            Launch::Help => self.print(self.usage(Offer::Both)),
            Launch::Version => self.print(self.version_line()),
        }
    }

    /// Serve one client over any byte stream of newline-delimited JSON-RPC
    /// ([`Lines`]; for a transport of your own, see
    /// [`serve_transport`](Self::serve_transport)).
    pub async fn serve<R, W>(self, reader: R, writer: W) -> Result<(), Error>
    where
        R: AsyncRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.serve_transport(Lines::new(reader, writer)).await
    }

    /// Start serving in a background task and return a client connected to
    /// it in memory. Must be called inside a Tokio runtime.
    pub fn connect_in_memory(self) -> Result<InMemoryClient, Error> {
        let (shared, limits) = self.build()?;
        let (server, to_server, from_server) = memory::pair();
        // What the client sends first waits in the channel until the
        // mounted servers are reached.
        let task = tokio::spawn(async move {
            shared.ready().await;
            connection::serve(server, None, shared, limits).await
        });
        Ok(InMemoryClient::new(to_server, from_server, task))
    }

    /// Serve one client over a transport of your own (see [`Transport`])
    /// until the client closes its side; running calls then finish within
    /// the shutdown grace and every answer is written.
    pub async fn serve_transport<T: Transport>(self, transport: T) -> Result<(), Error> {
        let (shared, limits) = self.build()?;
        shared.ready().await;
        connection::serve(transport, None, shared, limits).await?;
        Ok(())
    }
}
