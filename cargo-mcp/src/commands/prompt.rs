//! `cargo mcp prompt NAME key=value…`: one `prompts/get`, its messages
//! printed.

use std::process::ExitCode;

use mcp_core::{GetPromptResult, Role, methods};
use serde_json::json;

use crate::cli::PromptArgs;
use crate::connect::Connection;
use crate::failure::Failure;
use crate::incident;
use crate::output::{self, Style};

pub async fn run(args: PromptArgs) -> Result<ExitCode, Failure> {
    let arguments = super::pairs(&args.pairs, false)?;
    let connection = Connection::open(&args.connect).await?;
    let answer = connection.request(methods::PROMPTS_GET, json!({"name": args.name, "arguments": arguments})).await;
    let log = connection.server_log();
    connection.close().await;
    let result = answer.map_err(|failure| incident::annotate(failure, log.as_ref()))?;
    if args.json {
        println!("{}", output::pretty(&result, 0));
        return Ok(ExitCode::SUCCESS);
    }
    let prompt: GetPromptResult = serde_json::from_value(result.clone()).map_err(|e| {
        Failure::new(format!("the answer for the prompt `{}` is not a prompt: {e}", args.name))
            .detail(output::pretty(&result, 0))
    })?;
    let style = Style::stdout();
    if let Some(description) = &prompt.description {
        println!("{}", style.dim(description));
    }
    for message in &prompt.messages {
        let role = match message.role {
            Role::User => "user:",
            Role::Assistant => "assistant:",
        };
        println!("{}", style.bold(role));
        let text = output::content(&message.content, &style);
        for line in text.lines() {
            println!("  {line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
