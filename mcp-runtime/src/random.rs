//! Random identifiers (task ids, URL elicitation ids, the process's prefix
//! for task owners): bytes from the operating system, as lowercase hex.

/// `N` random bytes as `2N` lowercase hex digits.
pub(crate) fn hex_id<const N: usize>() -> String {
    use std::fmt::Write;
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the operating system's random number generator failed");
    let mut id = String::with_capacity(2 * N);
    for byte in bytes {
        let _ = write!(id, "{byte:02x}");
    }
    id
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
