//! Random identifiers (task ids, URL elicitation ids, the process's prefix
//! for task owners): bytes from the operating system, as lowercase hex.

/// `N` random bytes as `2N` lowercase hex digits.
pub(crate) fn hex_id<const N: usize>() -> String {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the operating system's random number generator failed");
    hex(&bytes)
}

/// `bytes` as lowercase hex digits (a task id's tag too).
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut hex = String::with_capacity(2 * bytes.len());
    for byte in bytes {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_are_hex_of_the_asked_length_and_differ() {
        let (a, b) = (super::hex_id::<16>(), super::hex_id::<16>());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()), "{a}");
        assert_ne!(a, b);
        assert_eq!(super::hex_id::<8>().len(), 16);
    }
}
