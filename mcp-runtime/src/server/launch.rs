//! The command line of a server started with [`Server::run`] (or
//! `run_blocking`, `run_stdio`): the same binary serves stdio to a client
//! that spawns it, and Streamable HTTP when started with `--http ADDR` or
//! `MCP_TRANSPORT=http`, so tools such as `cargo mcp run --http` need no
//! change to the server's code; `--help` and `--version` answer a person
//! who tries the binary by hand, and any other flag is refused with the
//! usage rather than quietly serving stdio to a terminal.
//!
//! [`Server::run`]: crate::Server::run

use std::ffi::OsString;

use crate::Server;
use crate::logging::LevelFilter;

/// The variable that picks the transport: `stdio` (the default) or `http`.
pub(crate) const TRANSPORT_VAR: &str = "MCP_TRANSPORT";
/// The variable that gives the HTTP address when `MCP_TRANSPORT=http`.
pub(crate) const HTTP_ADDR_VAR: &str = "MCP_HTTP_ADDR";
/// Where HTTP is served when `MCP_TRANSPORT=http` names no address.
pub(crate) const DEFAULT_HTTP_ADDR: &str = "127.0.0.1:8000";

/// What the command line asks of [`Server::run`](crate::Server::run).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Launch {
    /// stdin/stdout.
    Stdio,
    /// Streamable HTTP at `addr`; `asked_by` says how, for error messages.
    Http { addr: String, asked_by: &'static str },
    /// Print the usage and exit.
    Help,
    /// Print the name and version and exit.
    Version,
}

/// Which transports the starting method offers: `run_stdio` serves stdio
/// only, so its usage does not offer `--http`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Offer {
    StdioOnly,
    Both,
}

impl Server {
    /// The command line [`run`](Self::run), [`run_blocking`](Self::run_blocking)
    /// and [`run_stdio`](Self::run_stdio) read, in place of the process's
    /// (without the program's name). They refuse a flag they do not know,
    /// so a program with flags of its own takes those first and hands over
    /// the rest, or nothing:
    ///
    /// ```no_run
    /// fn main() -> Result<(), mcp_runtime::Error> {
    ///     let (read_only, rest): (Vec<String>, Vec<String>) =
    ///         std::env::args().skip(1).partition(|arg| arg == "--read-only");
    ///     let server = mcp_runtime::Server::new("inventory", "1.0.0");
    ///     # let _ = read_only;
    ///     server.args(rest).run_blocking()
    /// }
    /// ```
    pub fn args<I>(mut self, args: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<OsString>,
    {
        self.args = Some(args.into_iter().map(Into::into).collect());
        self
    }

    /// What this process's command line (or [`args`](Self::args)) and
    /// environment ask for.
    pub(crate) fn launch(&mut self, offer: Offer) -> Result<Launch, String> {
        let args = self.args.take().unwrap_or_else(|| std::env::args_os().skip(1).collect());
        let (transport, addr) = match offer {
            Offer::Both => (std::env::var_os(TRANSPORT_VAR), std::env::var_os(HTTP_ADDR_VAR)),
            Offer::StdioOnly => (None, None),
        };
        choose(args, transport, addr, offer).map_err(|e| format!("{e}\n\n{}", self.usage(offer)))
    }

    /// The text of `--help`.
    pub(crate) fn usage(&self, offer: Offer) -> String {
        usage(&program(), &self.info.name, &self.info.version, offer, self.log_level)
    }

    /// The line of `--version`.
    pub(crate) fn version_line(&self) -> String {
        format!("{} {}", self.info.name, self.info.version)
    }
}

/// The program's file name, as a person typed it.
fn program() -> String {
    let arg0 = std::env::args_os().next().unwrap_or_default();
    let name = std::path::Path::new(&arg0).file_name().unwrap_or(arg0.as_os_str());
    let name = name.to_string_lossy();
    if name.is_empty() { "server".to_owned() } else { name.into_owned() }
}

fn usage(program: &str, name: &str, version: &str, offer: Offer, level: LevelFilter) -> String {
    let level = level.to_string().to_lowercase();
    let (line, http, http_option, http_env) = match offer {
        Offer::StdioOnly => ("", "", String::new(), String::new()),
        Offer::Both => (
            " [--http ADDR]",
            "\nWith --http ADDR or MCP_TRANSPORT=http, it serves Streamable HTTP instead.",
            format!("  --http ADDR      Serve Streamable HTTP at ADDR (such as {DEFAULT_HTTP_ADDR}), not stdio\n"),
            format!(
                "  {TRANSPORT_VAR}    `stdio` (the default) or `http`\n  \
                 {HTTP_ADDR_VAR}    The address for {TRANSPORT_VAR}=http (default {DEFAULT_HTTP_ADDR})\n"
            ),
        ),
    };
    format!(
        "{name} {version}: a Model Context Protocol server.\n\
         A client starts it and speaks to it over its stdin and stdout.{http}\n\n\
         Usage: {program}{line}\n\n\
         Options:\n\
         {http_option}  \
         -h, --help       Print this help and exit\n  \
         -V, --version    Print the name and version and exit\n\n\
         Environment:\n\
         {http_env}  \
         MCP_LOG          The log level on stderr: off, error, warn, info, debug or trace (default {level})\n  \
         RUST_LOG         Read as MCP_LOG when that is unset and it is a plain level\n"
    )
}

/// `--help`, `--version` and `--http ADDR` (or `--http=ADDR`) anywhere
/// before a `--`; the first of them wins; then `MCP_TRANSPORT`. Any other
/// flag is refused (with a did-you-mean when one edit from a known one);
/// other arguments, and everything after `--`, are the program's.
fn choose(
    args: impl IntoIterator<Item = OsString>,
    transport: Option<OsString>,
    addr: Option<OsString>,
    offer: Offer,
) -> Result<Launch, String> {
    let known: &[&str] = match offer {
        Offer::Both => &["--http", "--help", "--version"],
        Offer::StdioOnly => &["--help", "--version"],
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        if arg == "--help" || arg == "-h" {
            return Ok(Launch::Help);
        }
        if arg == "--version" || arg == "-V" {
            return Ok(Launch::Version);
        }
        let Some(flag) = arg.to_str().filter(|a| a.starts_with('-') && *a != "-") else {
            if arg.to_str().is_none_or(|a| a.starts_with('-') && a != "-") {
                return Err(format!("{arg:?} is not valid UTF-8"));
            }
            continue;
        };
        let (name, value) = match flag.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (flag, None),
        };
        if name == "--http" && offer == Offer::Both {
            let addr = match value {
                Some(value) => Some(value.to_owned()),
                None => args.next().map(text).transpose()?,
            };
            return match addr {
                Some(addr) if !addr.is_empty() && !addr.starts_with('-') => {
                    Ok(Launch::Http { addr, asked_by: "`--http`" })
                }
                _ => Err(format!("`{flag}` needs an address to listen on, such as `--http {DEFAULT_HTTP_ADDR}`")),
            };
        }
        if name == "--http" {
            return Err("`--http`: this server serves stdio only (it is started with `Server::run_stdio`; \
                        `Server::run_blocking` serves Streamable HTTP too)"
                .to_owned());
        }
        let lower = name.to_lowercase();
        let close = known.iter().find(|known| strsim::osa_distance(&lower, known) <= 1);
        return Err(match close {
            Some(known) => format!("unknown flag `{name}`: did you mean `{known}`?"),
            None => format!("unknown flag `{name}`"),
        });
    }
    let Some(transport) = transport else { return Ok(Launch::Stdio) };
    let transport = text(transport)?;
    match transport.trim().to_ascii_lowercase().as_str() {
        "" | "stdio" => Ok(Launch::Stdio),
        "http" => {
            let addr = addr.map(text).transpose()?.filter(|a| !a.trim().is_empty());
            let addr = addr.unwrap_or_else(|| DEFAULT_HTTP_ADDR.to_owned());
            Ok(Launch::Http { addr, asked_by: "`MCP_TRANSPORT=http`" })
        }
        _ => Err(format!("{TRANSPORT_VAR}={transport:?} is not a transport this server knows: use `stdio` or `http`")),
    }
}

fn text(value: OsString) -> Result<String, String> {
    value.into_string().map_err(|v| format!("{v:?} is not valid UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    fn both(list: &[&str]) -> Result<Launch, String> {
        choose(args(list), None, None, Offer::Both)
    }

    fn http(addr: &str, asked_by: &'static str) -> Launch {
        Launch::Http { addr: addr.to_owned(), asked_by }
    }

    #[test]
    fn stdio_unless_asked_otherwise() {
        assert_eq!(both(&[]), Ok(Launch::Stdio));
        assert_eq!(both(&["data.db", "-"]), Ok(Launch::Stdio));
        assert_eq!(choose(args(&[]), Some("stdio".into()), Some("0.0.0.0:1".into()), Offer::Both), Ok(Launch::Stdio));
        assert_eq!(choose(args(&[]), Some("".into()), None, Offer::Both), Ok(Launch::Stdio));
    }

    #[test]
    fn the_http_argument_takes_an_address_anywhere_before_a_double_dash() {
        assert_eq!(both(&["--http", "127.0.0.1:3001"]), Ok(http("127.0.0.1:3001", "`--http`")));
        assert_eq!(both(&["data.db", "--http=[::1]:9"]), Ok(http("[::1]:9", "`--http`")));
        assert_eq!(both(&["--", "--http", "127.0.0.1:1"]), Ok(Launch::Stdio));
        // The argument wins over the environment.
        let both_ways = choose(args(&["--http", "127.0.0.1:2"]), Some("stdio".into()), None, Offer::Both);
        assert_eq!(both_ways, Ok(http("127.0.0.1:2", "`--http`")));
    }

    #[test]
    fn help_and_version_are_answered_in_either_spelling() {
        for offer in [Offer::Both, Offer::StdioOnly] {
            for flag in ["--help", "-h"] {
                assert_eq!(choose(args(&["x", flag]), None, None, offer), Ok(Launch::Help));
            }
            for flag in ["--version", "-V"] {
                assert_eq!(choose(args(&[flag, "--bogus"]), None, None, offer), Ok(Launch::Version));
            }
            assert_eq!(choose(args(&["--", "--help"]), None, None, offer), Ok(Launch::Stdio));
        }
    }

    #[test]
    fn an_unknown_flag_is_refused_with_a_suggestion_when_one_is_close() {
        for typo in ["--htpp", "--htp", "--httpp", "-http", "--HTTP", "--htpp=127.0.0.1:1"] {
            let error = both(&["data.db", typo, "127.0.0.1:1"]).unwrap_err();
            assert!(error.contains("did you mean `--http`?"), "{typo}: {error}");
            assert!(error.contains(&format!("`{}`", typo.split('=').next().unwrap())), "{typo}: {error}");
        }
        assert_eq!(both(&["--hepl"]).unwrap_err(), "unknown flag `--hepl`: did you mean `--help`?");
        assert_eq!(both(&["--port", "1"]).unwrap_err(), "unknown flag `--port`");
        assert_eq!(both(&["-v"]).unwrap_err(), "unknown flag `-v`");
        // After `--`, everything is the program's.
        assert_eq!(both(&["--", "--htpp", "x"]), Ok(Launch::Stdio));
    }

    #[test]
    fn a_stdio_only_server_refuses_http_and_does_not_offer_it() {
        let error = choose(args(&["--http", "127.0.0.1:1"]), None, None, Offer::StdioOnly).unwrap_err();
        assert!(error.contains("serves stdio only"), "{error}");
        let typo = choose(args(&["--htpp"]), None, None, Offer::StdioOnly).unwrap_err();
        assert_eq!(typo, "unknown flag `--htpp`");
        // The environment is not read for it: `run_stdio` ignores MCP_TRANSPORT.
        let text = usage("adder", "adder", "1.0.0", Offer::StdioOnly, LevelFilter::INFO);
        assert!(!text.contains("--http") && !text.contains(TRANSPORT_VAR), "{text}");
        assert!(text.contains("Usage: adder\n") && text.contains("MCP_LOG"), "{text}");
    }

    #[test]
    fn the_usage_names_the_program_the_server_and_every_variable() {
        let text = usage("calculator", "calculator", "0.3.0", Offer::Both, LevelFilter::WARN);
        assert!(text.starts_with("calculator 0.3.0: a Model Context Protocol server."), "{text}");
        for part in [
            "Usage: calculator [--http ADDR]",
            "--help",
            "--version",
            TRANSPORT_VAR,
            HTTP_ADDR_VAR,
            "MCP_LOG",
            "(default warn)",
            "RUST_LOG",
        ] {
            assert!(text.contains(part), "{part} missing from:\n{text}");
        }
    }

    #[test]
    fn a_missing_address_is_an_error_that_shows_one() {
        for given in [&["--http"][..], &["--http", "--verbose"], &["--http="]] {
            let error = both(given).unwrap_err();
            assert!(error.contains("127.0.0.1:8000"), "{error}");
        }
    }

    #[test]
    fn the_environment_picks_http_with_a_default_address() {
        let default = choose(args(&[]), Some("http".into()), None, Offer::Both);
        assert_eq!(default, Ok(http(DEFAULT_HTTP_ADDR, "`MCP_TRANSPORT=http`")));
        let given = choose(args(&[]), Some("HTTP".into()), Some("127.0.0.1:9000".into()), Offer::Both);
        assert_eq!(given, Ok(http("127.0.0.1:9000", "`MCP_TRANSPORT=http`")));
        let unknown = choose(args(&[]), Some("sse".into()), None, Offer::Both).unwrap_err();
        assert!(unknown.contains("`stdio` or `http`"), "{unknown}");
    }
}
