//! Reaching only the public internet with a URL someone else chose
//! (SSRF): an address that is private, loopback, link-local or otherwise
//! not public is refused, whether the URL names it or a name resolves to
//! it (checked as the name resolves, so one that changes its answer is
//! caught too). The OAuth client uses it for the URLs a server names, and
//! the runtime's OpenAPI loader for the documents a document refers to.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The address of a URL whose host is an IP literal.
pub fn literal_ip(url: &Url) -> Option<IpAddr> {
    let host = url.host_str()?;
    host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host).parse().ok()
}

/// Whether `ip` is reachable on the public internet: not loopback,
/// private, link-local, shared (CGNAT), unspecified, multicast,
/// broadcast, documentation or reserved, nor an IPv6 form of one.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => is_public_v4(ip),
        IpAddr::V6(ip) => {
            if let Some(v4) = ip.to_ipv4_mapped() {
                return is_public_v4(v4);
            }
            let segments = ip.segments();
            let unique_local = segments[0] & 0xfe00 == 0xfc00;
            let link_local = segments[0] & 0xffc0 == 0xfe80;
            let site_local = segments[0] & 0xffc0 == 0xfec0;
            let documentation = segments[0] == 0x2001 && segments[1] == 0x0db8;
            // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) embed an IPv4 address.
            let embedded = if segments[0] == 0x64 && segments[1] == 0xff9b && segments[2..6] == [0, 0, 0, 0] {
                Some(Ipv4Addr::new(
                    (segments[6] >> 8) as u8,
                    segments[6] as u8,
                    (segments[7] >> 8) as u8,
                    segments[7] as u8,
                ))
            } else if segments[0] == 0x2002 {
                Some(Ipv4Addr::new(
                    (segments[1] >> 8) as u8,
                    segments[1] as u8,
                    (segments[2] >> 8) as u8,
                    segments[2] as u8,
                ))
            } else {
                None
            };
            !(ip.is_loopback()
                || ip.is_unspecified()
                || ip.is_multicast()
                || unique_local
                || link_local
                || site_local
                || documentation
                || embedded.is_some_and(|v4| !is_public_v4(v4))
                || ip.to_ipv4().is_some_and(|v4| !is_public_v4(v4)))
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    let shared = a == 100 && (64..128).contains(&b);
    let benchmarking = a == 198 && (18..20).contains(&b);
    let reserved = a >= 240;
    let this_network = a == 0;
    let protocol_assignments = a == 192 && b == 0 && ip.octets()[2] == 0;
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_multicast()
        || ip.is_broadcast()
        || ip.is_documentation()
        || shared
        || benchmarking
        || reserved
        || this_network
        || protocol_assignments)
}

/// A resolver that answers only with public addresses: a name that
/// resolves to any other is refused whole (a name with one private
/// address is not one to trust with the rest). Give it to
/// `reqwest::ClientBuilder::dns_resolver`.
#[derive(Clone, Debug)]
pub struct PublicOnly {
    hint: &'static str,
}

impl PublicOnly {
    /// The resolver; `hint` ends its refusals, saying what allows the
    /// address (such as "allow_private_addresses allows it").
    pub fn new(hint: &'static str) -> PublicOnly {
        PublicOnly { hint }
    }
}

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let hint = self.hint;
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addresses: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if let Some(bad) = addresses.iter().find(|a| !is_public(a.ip())) {
                let message = format!(
                    "`{host}` resolves to {}, a private, loopback or link-local address, which is refused here \
                     ({hint})",
                    bad.ip()
                );
                return Err(message.into());
            }
            Ok(Box::new(addresses.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(text: &str) -> bool {
        is_public(text.parse().unwrap())
    }

    #[test]
    fn private_loopback_and_link_local_addresses_are_not_public() {
        for address in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:c0a8:0101::1",
            "2001:db8::1",
        ] {
            assert!(!public(address), "{address} is not public");
        }
        for address in ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"] {
            assert!(public(address), "{address} is public");
        }
    }

    #[test]
    fn a_literal_address_is_read_from_its_url() {
        let ip = |url: &str| literal_ip(&Url::parse(url).unwrap());
        assert_eq!(ip("http://[::1]:8080/x"), Some("::1".parse().unwrap()));
        assert_eq!(ip("http://10.0.0.1/"), Some("10.0.0.1".parse().unwrap()));
        assert_eq!(ip("https://example.com/"), None);
    }

    #[tokio::test]
    async fn a_name_resolving_to_a_private_address_is_refused_with_the_hint() {
        let resolved = PublicOnly::new("the setting allows it").resolve("localhost".parse().unwrap()).await;
        let error = resolved.err().expect("localhost is refused").to_string();
        assert!(error.contains("`localhost` resolves to") && error.contains("(the setting allows it)"), "{error}");
    }
}
