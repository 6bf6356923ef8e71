//! The Redis seed: the commands `infra/redis/seed.py` sends, with the same
//! keys and byte-identical values (its JSON written with Python's `", "`
//! and `": "` separators and float `repr`s), sent in pipelines.
//!
//! - `bench:cart:user-NNNNN`: 10,000 hashes (`user_id`, `items`, `created`,
//!   `expires`, `total`);
//! - `bench:history:user-NNNNN`: 1,000 lists of 20 orders;
//! - `bench:popular`: one sorted set of 100,000 `product:ID` members;
//! - `bench:ratelimit:user-NNNNN`: 100 counters at 0.

use crate::format::python_float;

/// Every command the seed sends, in its order.
pub fn commands() -> Vec<Vec<String>> {
    let mut commands = Vec::with_capacity(10_000 + 21_000 + 100_000 + 100);
    for n in 1..=10_000u64 {
        let mut items = vec![((n * 7) % 100_000 + 1, 1 + n % 3), ((n * 13) % 100_000 + 1, 1 + n % 2)];
        if n % 3 == 0 {
            items.push(((n * 17) % 100_000 + 1, 1));
        }
        let items_json: Vec<String> =
            items.iter().map(|(product, qty)| format!("{{\"product_id\": {product}, \"qty\": {qty}}}")).collect();
        let total =
            python_sum(items.iter().map(|&(product, qty)| (qty * (((product * 100) % 9_999) + 1)) as f64 / 100.0));
        commands.push(vec![
            "HSET".into(),
            format!("bench:cart:user-{n:05}"),
            "user_id".into(),
            format!("user-{n:05}"),
            "items".into(),
            format!("[{}]", items_json.join(", ")),
            "created".into(),
            "1740000000".into(),
            "expires".into(),
            "1740086400".into(),
            "total".into(),
            format!("{total:.2}"),
        ]);
    }
    for n in 1..=1_000u64 {
        let key = format!("bench:history:user-{n:05}");
        commands.push(vec!["DEL".into(), key.clone()]);
        for j in 1..=20u64 {
            let price = ((n * j * 13) % 9_999 + 1) as f64 / 100.0;
            let entry = format!(
                "{{\"order_id\": \"ORD-{n:05}-{j:02}\", \"product_id\": {}, \"qty\": {}, \"price\": {}, \"ts\": {}}}",
                (n * j * 7) % 100_000 + 1,
                1 + j % 3,
                python_float(price),
                1_740_000_000 + n * 86_400 + j * 3_600
            );
            commands.push(vec!["RPUSH".into(), key.clone(), entry]);
        }
    }
    for i in 1..=100_000u64 {
        commands.push(vec![
            "ZADD".into(),
            "bench:popular".into(),
            (i * 7 % 10_000).to_string(),
            format!("product:{i}"),
        ]);
    }
    for n in 1..=100u64 {
        commands.push(vec!["SET".into(), format!("bench:ratelimit:user-{n:05}"), "0".into()]);
    }
    commands
}

/// Python's `sum` of floats as the benchmark's seeder (Python 3.12) runs
/// it: Neumaier's compensated summation, whose last bit can differ from
/// adding in order.
fn python_sum(values: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut compensation) = (0.0f64, 0.0f64);
    for (at, x) in values.enumerate() {
        if at == 0 {
            sum = x;
            continue;
        }
        let t = sum + x;
        compensation += if sum.abs() >= x.abs() { (sum - t) + x } else { (x - t) + sum };
        sum = t;
    }
    if compensation != 0.0 && compensation.is_finite() { sum + compensation } else { sum }
}

/// Send [`commands`] to the Redis at `url`, after `FLUSHDB` if `flush` (the
/// benchmark flushes and seeds again before each server's run, so every
/// server starts from the same data).
pub async fn seed(url: &str, flush: bool) -> redis::RedisResult<()> {
    let client = redis::Client::open(url)?;
    let mut connection = client.get_multiplexed_async_connection().await?;
    if flush {
        redis::cmd("FLUSHDB").query_async::<()>(&mut connection).await?;
    }
    for batch in commands().chunks(5_000) {
        let mut pipe = redis::pipe();
        for command in batch {
            let mut cmd = redis::cmd(&command[0]);
            for arg in &command[1..] {
                cmd.arg(arg);
            }
            pipe.add_command(cmd).ignore();
        }
        pipe.query_async::<()>(&mut connection).await?;
    }
    Ok(())
}
