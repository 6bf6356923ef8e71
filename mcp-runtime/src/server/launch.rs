//! The transport chosen when the process starts, for [`Server::run`]: the
//! same binary serves stdio to a client that spawns it, and Streamable HTTP
//! when started with `--http ADDR` or `MCP_TRANSPORT=http`, so tools such as
//! `cargo mcp run --http` need no change to the server's code.
//!
//! [`Server::run`]: crate::Server::run

use std::ffi::OsString;

/// The variable that picks the transport: `stdio` (the default) or `http`.
pub(crate) const TRANSPORT_VAR: &str = "MCP_TRANSPORT";
/// The variable that gives the HTTP address when `MCP_TRANSPORT=http`.
pub(crate) const HTTP_ADDR_VAR: &str = "MCP_HTTP_ADDR";
/// Where HTTP is served when `MCP_TRANSPORT=http` names no address.
pub(crate) const DEFAULT_HTTP_ADDR: &str = "127.0.0.1:8000";

/// Where [`Server::run`](crate::Server::run) serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Launch {
    /// stdin/stdout.
    Stdio,
    /// Streamable HTTP at `addr`; `asked_by` says how, for error messages.
    Http { addr: String, asked_by: &'static str },
}

impl Launch {
    /// The choice of this process: its arguments, then its environment.
    pub(crate) fn of_this_process() -> Result<Launch, String> {
        choose(std::env::args_os().skip(1), std::env::var_os(TRANSPORT_VAR), std::env::var_os(HTTP_ADDR_VAR))
    }
}

/// `--http ADDR` (or `--http=ADDR`) anywhere before a `--` wins, as the
/// most explicit choice; then `MCP_TRANSPORT`. Other arguments are the
/// server's own business and are left alone, except a flag one edit from
/// `--http` (`--htpp`, `-http`, `--HTTP`), refused rather than quietly
/// serving stdio; `--http-port` and such are further and pass.
fn choose(
    args: impl IntoIterator<Item = OsString>,
    transport: Option<OsString>,
    addr: Option<OsString>,
) -> Result<Launch, String> {
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        if arg == "--http" {
            return match args.next().map(text) {
                Some(Ok(addr)) if !addr.is_empty() && !addr.starts_with('-') => {
                    Ok(Launch::Http { addr, asked_by: "`--http`" })
                }
                Some(Err(e)) => Err(e),
                _ => Err("`--http` needs an address to listen on, such as `--http 127.0.0.1:8000`".to_owned()),
            };
        }
        if let Some(addr) = arg.to_str().and_then(|a| a.strip_prefix("--http=")) {
            if addr.is_empty() {
                return Err("`--http=` needs an address to listen on, such as `--http=127.0.0.1:8000`".to_owned());
            }
            return Ok(Launch::Http { addr: addr.to_owned(), asked_by: "`--http`" });
        }
        if let Some(flag) = arg.to_str().filter(|a| a.starts_with('-')) {
            let name = flag.split_once('=').map_or(flag, |(name, _)| name);
            if strsim::levenshtein(&name.to_lowercase(), "--http") <= 1 {
                return Err(format!(
                    "unknown flag `{name}`: did you mean `--http`? (`--http ADDR` serves Streamable HTTP at ADDR)"
                ));
            }
        }
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

    fn http(addr: &str, asked_by: &'static str) -> Launch {
        Launch::Http { addr: addr.to_owned(), asked_by }
    }

    #[test]
    fn stdio_unless_asked_otherwise() {
        assert_eq!(choose(args(&[]), None, None), Ok(Launch::Stdio));
        assert_eq!(choose(args(&["--verbose", "x"]), None, None), Ok(Launch::Stdio));
        assert_eq!(choose(args(&[]), Some("stdio".into()), Some("0.0.0.0:1".into())), Ok(Launch::Stdio));
        assert_eq!(choose(args(&[]), Some("".into()), None), Ok(Launch::Stdio));
    }

    #[test]
    fn the_http_argument_takes_an_address_anywhere_before_a_double_dash() {
        assert_eq!(choose(args(&["--http", "127.0.0.1:3001"]), None, None), Ok(http("127.0.0.1:3001", "`--http`")));
        assert_eq!(choose(args(&["-v", "--http=[::1]:9"]), None, None), Ok(http("[::1]:9", "`--http`")));
        assert_eq!(choose(args(&["--", "--http", "127.0.0.1:1"]), None, None), Ok(Launch::Stdio));
        // The argument wins over the environment.
        let both = choose(args(&["--http", "127.0.0.1:2"]), Some("stdio".into()), None);
        assert_eq!(both, Ok(http("127.0.0.1:2", "`--http`")));
    }

    #[test]
    fn a_flag_one_edit_from_http_is_refused_with_the_suggestion() {
        for typo in ["--htpp", "--htp", "--httpp", "-http", "--HTTP", "--htpp=127.0.0.1:1"] {
            let error = choose(args(&["--verbose", typo, "127.0.0.1:1"]), None, None).unwrap_err();
            assert!(error.contains("did you mean `--http`?"), "{typo}: {error}");
            assert!(error.contains(&format!("`{}`", typo.split('=').next().unwrap())), "{typo}: {error}");
        }
        // The server's own flags, further from `--http`, pass; so does a
        // typo after `--`.
        for own in [&["--http-port", "8080"][..], &["--port", "1"], &["-h"], &["--", "--htpp", "x"]] {
            assert_eq!(choose(args(own), None, None), Ok(Launch::Stdio), "{own:?}");
        }
    }

    #[test]
    fn a_missing_address_is_an_error_that_shows_one() {
        for given in [&["--http"][..], &["--http", "--verbose"], &["--http="]] {
            let error = choose(args(given), None, None).unwrap_err();
            assert!(error.contains("127.0.0.1:8000"), "{error}");
        }
    }

    #[test]
    fn the_environment_picks_http_with_a_default_address() {
        let default = choose(args(&[]), Some("http".into()), None);
        assert_eq!(default, Ok(http(DEFAULT_HTTP_ADDR, "`MCP_TRANSPORT=http`")));
        let given = choose(args(&[]), Some("HTTP".into()), Some("127.0.0.1:9000".into()));
        assert_eq!(given, Ok(http("127.0.0.1:9000", "`MCP_TRANSPORT=http`")));
        let unknown = choose(args(&[]), Some("sse".into()), None).unwrap_err();
        assert!(unknown.contains("`stdio` or `http`"), "{unknown}");
    }
}
