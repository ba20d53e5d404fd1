//! Basic authentication against the bcrypt hashes of a web config's `basic_auth_users`.
//!
//! A bcrypt check costs tens of milliseconds by design (cost 10: ~70 ms), too much for every
//! scrape: credentials that have passed are remembered, as exporter-toolkit does, here by their
//! SHA-256 (never the password itself), so a scraper pays the hash once. Checks that do need
//! bcrypt run off the async thread, one at a time, so clients trying passwords hold at most one
//! blocking thread and never the one that accepts connections or answers cached scrapers.
//! Names are compared by their SHA-256 in constant time, and an unknown name costs a bcrypt
//! check like a known one, so timing tells neither a name's length nor whether it exists.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use base64::Engine;
use ring::digest::{SHA256, digest};
use subtle::ConstantTimeEq;
use tokio::sync::Semaphore;

/// Credentials remembered after a bcrypt check passed (the oldest forgotten first).
const REMEMBERED: usize = 16;

type Digest = [u8; 32];

struct User {
    name: Digest,
    hash: String,
}

/// The users of a web config and the credentials that have passed.
pub struct Users {
    users: Arc<Vec<User>>,
    passed: Mutex<VecDeque<Digest>>,
    bcrypt: Semaphore,
}

fn sha256(parts: &[&[u8]]) -> Digest {
    let mut joined = Vec::new();
    for p in parts {
        // Each part's length first: ("ab", "c") and ("a", "bc") differ.
        joined.extend_from_slice(&(p.len() as u64).to_le_bytes());
        joined.extend_from_slice(p);
    }
    let d = digest(&SHA256, &joined);
    let mut out = [0u8; 32];
    out.copy_from_slice(d.as_ref());
    out
}

impl Users {
    /// The users of `basic_auth_users` (name → bcrypt hash); an error names a user whose hash is
    /// not a bcrypt hash.
    pub fn new(users: BTreeMap<String, String>) -> Result<Self, String> {
        let mut list = Vec::new();
        for (name, hash) in users {
            if let Err(e) = hash.parse::<bcrypt::HashParts>() {
                return Err(format!(
                    "basic_auth_users: '{name}': not a bcrypt hash ({e}; htpasswd -nBC 10 \"\" \
                     | tr -d ':\\n' makes one)"
                ));
            }
            list.push(User {
                name: sha256(&[name.as_bytes()]),
                hash,
            });
        }
        Ok(Users {
            users: Arc::new(list),
            passed: Mutex::new(VecDeque::new()),
            bcrypt: Semaphore::new(1),
        })
    }

    /// Whether an `Authorization` header's value carries a user's name and password.
    pub async fn allows(&self, authorization: Option<&[u8]>) -> bool {
        let Some((name, password)) = authorization.and_then(basic) else {
            return false;
        };
        let key = sha256(&[&name, &password]);
        if self.remembered(&key) {
            return true;
        }
        let wanted = sha256(&[&name]);
        let mut found = None;
        for (i, u) in self.users.iter().enumerate() {
            if bool::from(u.name.ct_eq(&wanted)) {
                found = Some(i);
            }
        }
        let Ok(_one_at_a_time) = self.bcrypt.acquire().await else {
            return false;
        };
        let users = Arc::clone(&self.users);
        // An unknown name is checked against the first user's hash (same cost), then refused.
        let index = found.unwrap_or(0);
        let checked = tokio::task::spawn_blocking(move || {
            users
                .get(index)
                .is_some_and(|u| bcrypt::verify(&password, &u.hash).unwrap_or(false))
        })
        .await
        .unwrap_or(false);
        let ok = checked && found.is_some();
        if ok {
            let mut passed = self.passed.lock().unwrap_or_else(PoisonError::into_inner);
            if passed.len() >= REMEMBERED {
                passed.pop_front();
            }
            passed.push_back(key);
        }
        ok
    }

    fn remembered(&self, key: &Digest) -> bool {
        let passed = self.passed.lock().unwrap_or_else(PoisonError::into_inner);
        let mut hit = subtle::Choice::from(0);
        for p in passed.iter() {
            hit |= p.ct_eq(key);
        }
        hit.into()
    }
}

/// The name and password of a `Basic` authorization.
fn basic(value: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let value = std::str::from_utf8(value).ok()?.trim();
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let colon = decoded.iter().position(|&b| b == b':')?;
    Some((decoded[..colon].to_vec(), decoded[colon + 1..].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(user: &str, pass: &str) -> Vec<u8> {
        let enc = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"));
        format!("Basic {enc}").into_bytes()
    }

    #[test]
    fn basic_credentials() {
        assert_eq!(
            basic(&header("alice", "a:b")),
            Some((b"alice".to_vec(), b"a:b".to_vec()))
        );
        assert_eq!(basic(b"basic YTpi"), Some((b"a".to_vec(), b"b".to_vec())));
        assert_eq!(basic(b"Bearer YTpi"), None);
        assert_eq!(basic(b"Basic !!!"), None);
        assert_eq!(basic(b"Basic YWI="), None, "no colon");
        assert_eq!(basic(b"\xff"), None);
    }

    #[test]
    fn passwords_against_their_hashes() {
        let users = Users::new(BTreeMap::from([
            ("alice".to_string(), bcrypt::hash("wonderland", 4).unwrap()),
            ("bob".to_string(), bcrypt::hash("builder", 4).unwrap()),
        ]))
        .unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            assert!(users.allows(Some(&header("alice", "wonderland"))).await);
            assert!(users.allows(Some(&header("bob", "builder"))).await);
            // Remembered now: the same again passes without bcrypt.
            assert!(users.remembered(&sha256(&[b"alice", b"wonderland"])));
            assert!(users.allows(Some(&header("alice", "wonderland"))).await);
            assert!(!users.allows(Some(&header("alice", "builder"))).await);
            assert!(!users.allows(Some(&header("bob", "wonderland"))).await);
            assert!(!users.allows(Some(&header("carol", "wonderland"))).await);
            assert!(!users.allows(Some(&header("", ""))).await);
            assert!(!users.allows(None).await);
            assert!(!users.remembered(&sha256(&[b"alice", b"builder"])));
        });
    }
}
