//! Which parameter reads which template variable: a parameter named after
//! a variable reads it, any other is injected. Variables no parameter
//! reads, and parameters that look like a misspelled variable, are
//! reported.

use syn::LitStr;

use super::template::Variable;
use crate::internals::attr::unraw;
use crate::internals::errors::Errors;
use crate::internals::function::Function;
use crate::internals::param::Source;
use crate::internals::suggest::did_you_mean;

/// Set each parameter's [`Source`] from the template's `vars`; `uri` is
/// where to point at a variable no parameter reads.
pub(crate) fn bind(function: &mut Function, uri: Option<&LitStr>, vars: &[Variable], errors: &mut Errors) {
    let var_names: Vec<&str> = vars.iter().map(|v| v.name.as_str()).collect();
    for p in &mut function.params {
        for lit in p.arg.rename.iter().chain(&p.arg.description) {
            errors
                .spanned(lit, "a resource parameter takes only `#[arg(complete = f)]`: it is named after its variable");
        }
        // A resource parameter is named after its variable, whatever
        // `rename` said (refused above).
        let name = unraw(&p.ident);
        let variable = var_names.contains(&name.as_str());
        if !variable && let Some(close) = did_you_mean(&name, &var_names) {
            errors.spanned(
                &p.ident,
                format_args!("`{name}` is no variable of the URI template; did you mean `{close}`?"),
            );
        }
        if let (Some(path), false) = (&p.arg.complete, variable) {
            errors.spanned(path, format_args!("`{name}` is no template variable, so there is nothing to complete"));
        }
        p.source = if variable { Source::Variable } else { Source::Injected };
        (p.name, p.name_span) = (name, p.ident.span());
    }
    let params = &function.params;
    for var in vars {
        if !params.iter().any(|p| p.name == var.name) {
            let names: Vec<&str> =
                params.iter().filter(|p| p.source == Source::Injected).map(|p| p.name.as_str()).collect();
            let ty = if var.query { "Option<T>" } else { "T" };
            let hint = match did_you_mean(&var.name, &names) {
                Some(close) => format!(
                    "; rename the parameter `{close}` to `{}` (a parameter reads the variable it is named after)",
                    var.name
                ),
                None => {
                    format!("; add a parameter `{}: {ty}` (a parameter reads the variable it is named after)", var.name)
                }
            };
            let message = format!("the URI template's variable `{}` is read by no parameter{hint}", var.name);
            match uri {
                Some(uri) => errors.spanned(uri, message),
                None => errors.push(syn::Error::new(function.ident().span(), message)),
            }
        }
    }
}
