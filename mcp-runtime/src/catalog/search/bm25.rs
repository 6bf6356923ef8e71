//! The ranking behind tool search: an Okapi BM25 index over each tool's
//! name, title, description and parameters (names and docs), built once
//! per catalog snapshot; and the regex match used instead when a caller
//! asks for one.

use std::collections::HashMap;

/// BM25's term-frequency saturation and length normalization, at their
/// usual values.
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// How many times a word of each field counts: a word of a tool's name
/// says more about it than one of a parameter's doc.
const NAME_WEIGHT: u16 = 3;
const TITLE_WEIGHT: u16 = 2;
const TEXT_WEIGHT: u16 = 1;

/// Words too common in tool descriptions to tell tools apart.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "for", "from", "i", "if", "in", "into", "is", "it", "its",
    "me", "my", "of", "on", "or", "that", "the", "this", "to", "use", "used", "using", "via", "when", "which", "will",
    "with", "you", "your", "about", "what", "some", "all",
];

/// Words a query may use for what tool descriptions name otherwise: a
/// query's word also searches for these (BM25 matches words only, and a
/// model asks in its own words).
const ALSO: &[(&str, &[&str])] = &[
    ("folder", &["directory"]),
    ("dir", &["directory"]),
    ("repo", &["repository"]),
    ("find", &["search"]),
    ("lookup", &["search"]),
    ("pr", &["pull", "request"]),
    ("remove", &["delete"]),
    ("erase", &["delete"]),
    ("rename", &["move"]),
    ("send", &["post"]),
    ("new", &["create"]),
    ("make", &["create"]),
    ("add", &["create"]),
    ("fetch", &["get"]),
    ("retrieve", &["get"]),
    ("show", &["get"]),
    ("view", &["read"]),
    ("open", &["read"]),
    ("modify", &["update", "edit"]),
    ("change", &["update", "edit"]),
    ("download", &["fetch"]),
    ("url", &["fetch"]),
];

/// What one tool is searched by.
pub(crate) struct Document<'a> {
    pub(crate) name: &'a str,
    pub(crate) title: Option<&'a str>,
    /// The description and every parameter's name and description.
    pub(crate) text: Vec<&'a str>,
}

/// An inverted index of documents, by their place in the list it was
/// built from.
pub(crate) struct Index {
    terms: HashMap<Box<str>, u32>,
    /// For each term, the documents it occurs in and how often (weighted).
    postings: Vec<Vec<(u32, u16)>>,
    lengths: Vec<u32>,
    average_length: f32,
}

impl Index {
    pub(crate) fn new<'a>(documents: impl IntoIterator<Item = Document<'a>>) -> Index {
        let mut index = Index { terms: HashMap::new(), postings: Vec::new(), lengths: Vec::new(), average_length: 0.0 };
        let mut counts: HashMap<u32, u16> = HashMap::new();
        for (at, document) in documents.into_iter().enumerate() {
            counts.clear();
            let mut length = 0u32;
            let fields = std::iter::once((document.name, NAME_WEIGHT))
                .chain(document.title.map(|t| (t, TITLE_WEIGHT)))
                .chain(document.text.iter().map(|t| (*t, TEXT_WEIGHT)));
            for (field, weight) in fields {
                for term in terms(field) {
                    let next = index.postings.len() as u32;
                    let id = *index.terms.entry(term.into_boxed_str()).or_insert(next);
                    if id == next {
                        index.postings.push(Vec::new());
                    }
                    let count = counts.entry(id).or_default();
                    *count = count.saturating_add(weight);
                    length += u32::from(weight);
                }
            }
            for (&id, &count) in &counts {
                index.postings[id as usize].push((at as u32, count));
            }
            index.lengths.push(length);
        }
        let total: u64 = index.lengths.iter().map(|&l| u64::from(l)).sum();
        index.average_length = (total as f32 / index.lengths.len().max(1) as f32).max(1.0);
        index.postings.iter_mut().for_each(|p| p.shrink_to_fit());
        index
    }

    /// The documents `query` matches best, best first (ties in the order
    /// they were given), at most `limit`, with their scores.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<(usize, f32)> {
        let documents = self.lengths.len() as f32;
        let mut scores: HashMap<u32, f32> = HashMap::new();
        let mut seen = Vec::new();
        for term in expanded(query) {
            let Some(&id) = self.terms.get(term.as_str()) else { continue };
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
            let postings = &self.postings[id as usize];
            let df = postings.len() as f32;
            let idf = (1.0 + (documents - df + 0.5) / (df + 0.5)).ln();
            for &(document, tf) in postings {
                let tf = f32::from(tf);
                let norm = 1.0 - B + B * self.lengths[document as usize] as f32 / self.average_length;
                *scores.entry(document).or_default() += idf * tf * (K1 + 1.0) / (tf + K1 * norm);
            }
        }
        let mut ranked: Vec<(usize, f32)> = scores.into_iter().map(|(d, s)| (d as usize, s)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(limit);
        ranked
    }
}

/// The terms of a query, each followed by those [`ALSO`] adds for it.
fn expanded(query: &str) -> Vec<String> {
    let mut all = Vec::new();
    for word in words(query) {
        let word = word.to_lowercase();
        if let Some((_, also)) = ALSO.iter().find(|(w, _)| *w == word) {
            all.extend(also.iter().map(|a| stem(a)));
        }
        if !STOP_WORDS.contains(&word.as_str()) {
            all.push(stem(&word));
        }
    }
    all
}

/// The words of `text`, lower-cased and reduced to a crude stem: split at
/// anything not a letter or digit and at camelCase humps, stop words left
/// out.
pub(crate) fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    words(text).filter_map(|word| {
        let word = word.to_lowercase();
        (!STOP_WORDS.contains(&word.as_str())).then(|| stem(&word))
    })
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).flat_map(|word| {
        // `getFileInfo` → `get`, `File`, `Info`.
        let mut cuts = vec![0];
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        for pair in chars.windows(2) {
            if pair[0].1.is_lowercase() && pair[1].1.is_uppercase() {
                cuts.push(pair[1].0);
            }
        }
        cuts.push(word.len());
        cuts.windows(2).map(|c| &word[c[0]..c[1]]).collect::<Vec<_>>()
    })
}

/// `directories` → `director`, `listing` → `list`, `created` → `creat`:
/// suffixes stripped so a query's and a description's forms of one word
/// meet (both sides go through it, so the stems need not be words).
fn stem(word: &str) -> String {
    let word = word.strip_suffix('\'').unwrap_or(word);
    for suffix in ["ies", "ing", "es", "ed", "s", "y", "e"] {
        if let Some(stem) = word.strip_suffix(suffix)
            && stem.chars().count() >= 3
            && !(suffix == "s" && stem.ends_with('s'))
        {
            return stem.to_owned();
        }
    }
    word.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc<'a>(name: &'a str, text: &'a str) -> Document<'a> {
        Document { name, title: None, text: vec![text] }
    }

    #[test]
    fn words_split_at_case_and_punctuation_and_share_stems() {
        let t: Vec<String> = terms("getFileInfo list_directories, Listing the FILES").collect();
        assert_eq!(t, ["get", "fil", "info", "list", "director", "list", "fil"]);
        assert_eq!(stem("directory"), stem("directories"));
        assert_eq!(stem("create"), stem("created"));
    }

    #[test]
    fn the_tool_whose_words_match_ranks_first() {
        let index = Index::new([
            doc("read_file", "Read the complete contents of a file from the file system."),
            doc("create_issue", "Create a new issue in a GitHub repository."),
            doc("search_repositories", "Search for GitHub repositories."),
        ]);
        assert_eq!(index.search("new issue on github", 3)[0].0, 1);
        assert_eq!(index.search("read file contents", 3)[0].0, 0);
        assert!(index.search("zebra", 3).is_empty());
    }
}
