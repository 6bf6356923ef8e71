//! The catalog: the 100,000 products `api-service/main.go` builds at
//! start-up, by its formulas, each kept with its JSON already written (as Go
//! would write it) so that an answer is copied, not encoded.

use std::collections::HashMap;

use crate::format::{go_f32, go_f64};

/// How many products there are; ids run from 1 to this.
pub const PRODUCTS: usize = 100_000;

const CATEGORIES: [&str; 20] = [
    "Electronics",
    "Books",
    "Clothing",
    "Sports",
    "Home",
    "Garden",
    "Toys",
    "Food",
    "Beauty",
    "Automotive",
    "Music",
    "Movies",
    "Games",
    "Office",
    "Health",
    "Pets",
    "Travel",
    "Tools",
    "Jewelry",
    "Baby",
];

const BRANDS: [&str; 50] = [
    "Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa", "Lambda", "Mu", "Nu", "Xi",
    "Omicron", "Pi", "Rho", "Sigma", "Tau", "Upsilon", "Phi", "Chi", "Psi", "Omega", "Apex", "Nexus", "Vertex",
    "Zenith", "Nadir", "Flux", "Forge", "Craft", "Build", "Make", "Create", "Design", "Style", "Form", "Shape", "Mold",
    "Cast", "Weld", "Fuse", "Bond", "Link", "Chain", "Wire", "Mesh", "Weave", "Knit",
];

const TAGS: [&str; 8] = ["sale", "new", "featured", "bestseller", "clearance", "limited", "popular", "exclusive"];

/// Go's `r2`: rounded to cents, halves away from zero (`math.Round`).
pub fn round_cents(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// One product: what a search filters and sorts on, and its JSON.
pub struct Product {
    /// Its price, the search's filter and order.
    pub price: f64,
    /// The product as Go's encoder writes it (no trailing newline).
    pub json: Box<str>,
}

/// Every product, and each category's products in id order.
pub struct Catalog {
    products: Vec<Product>,
    by_category: HashMap<&'static str, Vec<u32>>,
}

/// A search's answer: how many matched, and the first `limit` of them by
/// price; `None` when the category exists but nothing matched (Go's nil
/// slice, written `null`).
pub struct Found<'a> {
    /// Every match, before the limit.
    pub total: usize,
    /// The matches returned.
    pub products: Option<Vec<&'a Product>>,
}

impl Catalog {
    /// The catalog `main.go`'s `init` builds.
    pub fn build() -> Self {
        let mut products = Vec::with_capacity(PRODUCTS);
        let mut by_category: HashMap<&'static str, Vec<u32>> = HashMap::new();
        for i in 0..PRODUCTS {
            let category = CATEGORIES[i % 20];
            let brand = BRANDS[i % 50];
            let price = 1.0 + (i % 99_900) as f64 / 100.0;
            let stock = i % 501;
            // float32 arithmetic, as in Go.
            let rating = 1.0f32 + (i % 40) as f32 / 10.0;
            let tags: Vec<String> = (0..2 + i % 3).map(|j| format!("\"{}\"", TAGS[(i + j) % 8])).collect();
            let weight = round_cents((1 + i % 100) as f64 * 0.1);
            let id = i + 1;
            let json = format!(
                "{{\"id\":{id},\"sku\":\"SKU-{id:06}\",\"name\":\"{brand} {category} Item {id}\",\
                 \"category\":\"{category}\",\"brand\":\"{brand}\",\"price\":{},\"stock\":{stock},\
                 \"rating\":{},\"tags\":[{}],\"weight\":{},\"description\":\"Quality {category} by {brand}. \
                 SKU {id:06}.\"}}",
                go_f64(price),
                go_f32(rating),
                tags.join(","),
                go_f64(weight),
            );
            products.push(Product { price, json: json.into_boxed_str() });
            by_category.entry(category).or_default().push(i as u32);
        }
        Catalog { products, by_category }
    }

    /// Product `id` (1 to [`PRODUCTS`]).
    pub fn product(&self, id: i64) -> Option<&Product> {
        let index = usize::try_from(id.checked_sub(1)?).ok()?;
        self.products.get(index)
    }

    /// `category`'s products priced from `min` to `max` inclusive, cheapest
    /// first; `None` for a category the catalog does not have. Equal prices
    /// keep id order (Go's `sort.Slice` leaves their order unspecified; no
    /// two products in one category share a price from 10.00 up).
    pub fn search(&self, category: &str, min: f64, max: f64, limit: usize) -> Option<Found<'_>> {
        let indices = self.by_category.get(category)?;
        let mut matching: Vec<&Product> =
            indices.iter().map(|&i| &self.products[i as usize]).filter(|p| p.price >= min && p.price <= max).collect();
        let total = matching.len();
        if total == 0 {
            return Some(Found { total, products: None });
        }
        matching.sort_by(|a, b| a.price.total_cmp(&b.price));
        matching.truncate(limit);
        Some(Found { total, products: Some(matching) })
    }

    /// A product's price, for the cart.
    pub fn price(&self, id: i64) -> Option<f64> {
        self.product(id).map(|p| p.price)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_search_finds_what_the_benchmark_checks() {
        let catalog = Catalog::build();
        let found = catalog.search("Electronics", 50.0, 500.0, 10).unwrap();
        assert_eq!(found.total, 2251);
        let products = found.products.unwrap();
        assert_eq!(products.len(), 10);
        assert!(products[0].json.starts_with(r#"{"id":4901,"sku":"SKU-004901","name":"Alpha Electronics Item 4901""#));
        assert!(
            products[0]
                .json
                .contains(r#""price":50,"stock":391,"rating":3,"tags":["clearance","limited","popular"],"weight":0.1"#)
        );
        assert!(catalog.search("Nothing", 0.0, 1.0, 10).is_none());
        assert!(catalog.search("Books", 2000.0, 3000.0, 10).unwrap().products.is_none());
    }
}
