//! The public handle over one catalog (`ToolsHandle`, `PromptsHandle`),
//! made by one macro so every kind's handle changes its catalog alike.

/// A public handle over one catalog, changing it while the server runs:
/// `add`, `remove`, `disable`, `enable`, and `names`.
macro_rules! catalog_handle {
    ($(#[$doc:meta])* $handle:ident, $kind:ty, $source:ident, $noun:literal) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $handle(pub(crate) std::sync::Arc<$crate::component::Catalog<$kind>>);

        impl $handle {
            #[doc = concat!("Add a ", $noun, ".")]
            pub fn add(&self, item: impl $source) -> Result<(), $crate::Error> {
                self.0.add(std::sync::Arc::new(item))
            }

            #[doc = concat!("Remove the ", $noun, " named `name`; `false` if there is none.")]
            pub fn remove(&self, name: &str) -> bool {
                self.0.remove(name)
            }

            #[doc = concat!("Stop offering the ", $noun, " named `name` (it is kept, and can be enabled again); `false` if it was already disabled.")]
            pub fn disable(&self, name: &str) -> bool {
                self.0.disable(name)
            }

            #[doc = concat!("Offer the ", $noun, " named `name` again; `false` if it was not disabled.")]
            pub fn enable(&self, name: &str) -> bool {
                self.0.enable(name)
            }

            #[doc = concat!("Stop offering every ", $noun, " tagged `tag` (`#[", $noun, "(tags = [..])]`, or a mounted one's `_meta.tags`), now and as they are added, until [`enable_tagged`](Self::enable_tagged); `false` if the tag was already disabled.")]
            pub fn disable_tagged(&self, tag: &str) -> bool {
                self.0.disable_tagged(tag)
            }

            #[doc = concat!("Offer the ", $noun, "s tagged `tag` again (those not disabled otherwise); `false` if the tag was not disabled.")]
            pub fn enable_tagged(&self, tag: &str) -> bool {
                self.0.enable_tagged(tag)
            }

            #[doc = concat!("The names of every registered ", $noun, ", enabled or not, sorted.")]
            pub fn names(&self) -> Vec<String> {
                self.0.keys()
            }
        }

        impl std::fmt::Debug for $handle {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_tuple(stringify!($handle)).field(&self.names()).finish()
            }
        }
    };
}
pub(crate) use catalog_handle;
