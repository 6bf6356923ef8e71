use std::path::Path;

use super::crate_of_binary;

#[test]
fn the_crate_is_guessed_from_the_binary_name() {
    assert_eq!(crate_of_binary(Path::new("/x/target/debug/my-server")).as_deref(), Some("my_server"));
    assert_eq!(crate_of_binary(Path::new("/x/target/release/my-server.exe")).as_deref(), Some("my_server"));
    assert_eq!(crate_of_binary(Path::new("/t/deps/suite-0123456789abcdef")).as_deref(), Some("suite"));
    assert_eq!(crate_of_binary(Path::new("/t/a-b-c")).as_deref(), Some("a_b_c"));
    assert_eq!(crate_of_binary(Path::new("/")), None);
}
