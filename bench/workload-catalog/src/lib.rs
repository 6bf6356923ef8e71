//! The services behind the published MCP workload ("MCP Server Performance
//! Benchmark v2"): its product catalog service and its Redis seed, so the
//! workload runs on one machine without Docker or Go.
//!
//! - [`catalog`]: the 100,000 products the benchmark's `api-service/main.go`
//!   builds at start-up, made by the same formulas;
//! - [`service`]: that service's four routes, with the same answers, bytes
//!   included (`GET /health`, `GET /products/search`, `GET /products/{id}`,
//!   `POST /cart/calculate`);
//! - [`seed`]: the keys `infra/redis/seed.py` writes, with the same values.
//!
//! The Go service is ported rather than built because it needs Go 1.22 (its
//! routes are method-and-wildcard patterns, which older Go `ServeMux`es take
//! as literal paths), newer than the distribution's Go here.

pub mod catalog;
pub mod format;
pub mod seed;
pub mod service;
