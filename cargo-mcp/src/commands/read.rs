//! `cargo mcp read URI`: one `resources/read`, its contents printed.

use std::process::ExitCode;

use mcp_core::{ReadResourceResult, methods};
use serde_json::json;

use crate::cli::ReadArgs;
use crate::connect::Connection;
use crate::failure::Failure;
use crate::incident;
use crate::output::{self, Style};

pub async fn run(args: ReadArgs) -> Result<ExitCode, Failure> {
    let connection = Connection::open(&args.connect).await?;
    let answer = connection.request(methods::RESOURCES_READ, json!({"uri": args.uri})).await;
    let log = connection.server_log();
    connection.close().await;
    let result = answer.map_err(|failure| incident::annotate(failure, log.as_ref()))?;
    if args.json {
        println!("{}", output::pretty(&result, 0));
        return Ok(ExitCode::SUCCESS);
    }
    let read: ReadResourceResult = serde_json::from_value(result.clone()).map_err(|e| {
        Failure::new(format!("the answer for `{}` is not a resource's contents: {e}", args.uri))
            .detail(output::pretty(&result, 0))
    })?;
    let style = Style::stdout();
    let several = read.contents.len() > 1;
    for contents in &read.contents {
        // Several parts (a folder, say) each say which URI they are.
        if several {
            println!("{}", style.dim(&format!("── {}", output::uri_of(contents))));
        }
        println!("{}", output::resource_contents(contents, &style));
    }
    if read.contents.is_empty() {
        eprintln!("{}", Style::stderr().dim("(the resource has no contents)"));
    }
    Ok(ExitCode::SUCCESS)
}
