//! What the attributes' generated code calls, reached through `__private`
//! only: the future of one run of a handler, and the link-time collection
//! every `#[tool]`, `#[resource]` and `#[prompt]` registers in. One
//! generic set for the three kinds.

use std::future::Future;

use crate::prompts::Prompt;
use crate::resources::Resource;
use crate::tools::{BoxFuture, Tool};

/// The future of one run of an async handler: `future`, then `convert` on
/// its output. The `Send` bound lives here, so the attributes can point a
/// future that is not `Send` at the function that made it.
pub fn boxed<F, C, T>(future: F, convert: C) -> BoxFuture<'static, T>
where
    F: Future + Send + 'static,
    C: FnOnce(F::Output) -> T + Send + 'static,
{
    Box::pin(async move { convert(future.await) })
}

/// A run that is already over (its parameters could not be made).
pub fn ready<T: Send + 'static>(value: T) -> BoxFuture<'static, T> {
    Box::pin(std::future::ready(value))
}

/// One component in the link-time collection of its kind
/// (`Registration<dyn Tool>`, …); each attribute submits one.
pub struct Registration<T: ?Sized + 'static> {
    item: &'static T,
}

impl<T: ?Sized> Registration<T> {
    /// A registration of `item`.
    pub const fn new(item: &'static T) -> Self {
        Registration { item }
    }
}

inventory::collect!(Registration<dyn Tool>);
inventory::collect!(Registration<dyn Resource>);
inventory::collect!(Registration<dyn Prompt>);

/// Every component of one kind registered anywhere in the binary.
pub(crate) fn collected<T: ?Sized + 'static>() -> impl Iterator<Item = &'static T>
where
    Registration<T>: inventory::Collect,
{
    inventory::iter::<Registration<T>>.into_iter().map(|r| r.item)
}
