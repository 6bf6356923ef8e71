//! A server with nothing registered, as a binary whose `#[tool]`s the
//! linker left out would be. The start-up tests check that it says so on
//! stderr, with the fix. `empty` makes it with `Server::empty`, `handle`
//! takes a tools handle (nothing to warn of either way); no argument, with
//! `Server::new`.

use mcp_runtime::Server;

fn main() -> Result<(), mcp_runtime::Error> {
    let server = match std::env::args().nth(1).as_deref() {
        Some("empty") => Server::empty("empty", "0.0.0"),
        Some("handle") => {
            let server = Server::new("empty", "0.0.0");
            let _ = server.tools_handle();
            server
        }
        _ => Server::new("empty", "0.0.0"),
    };
    server.run_stdio()
}
