//! Compile-time behaviour of `#[tool]`: shapes it accepts (`ui/pass`) and
//! the errors it gives for mistakes (`ui/fail`, each with a `.stderr`
//! snapshot). Snapshots are compiler-specific, so other compilers skip.

#[rustversion::attr(not(stable(1.95)), ignore)]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
