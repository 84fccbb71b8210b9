//! Public keys that verify tokens: a JWKS document (RFC 7517) read from a file, each
//! key chosen by its `kid`, and the Ed25519 key pairs gamehub makes for itself.
//!
//! A key may carry gamehub's own member `gamehub_scope`:
//!
//! - absent: an **issuer** key, which signs tokens of any subject and role (the key of
//!   whatever hands players and operators their tokens: `gamehub token`, a login
//!   service);
//! - `"service:NAME"`: a **service** key, which signs only service tokens whose subject
//!   is `NAME`. Each gamehub service holds the private half of its own scoped key, so a
//!   leaked service environment can speak as that service and nothing more.
//!
//! Only asymmetric keys are accepted: Ed25519 (`"kty": "OKP"`, `EdDSA`) and P-256
//! (`"kty": "EC"`, `ES256`). A symmetric (`oct`) key in a JWKS would let every verifier
//! mint, so a document holding one is refused whole.

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::Role;

/// The largest JWKS document read (bytes).
pub const MAX_JWKS_BYTES: usize = 256 * 1024;
/// The most keys one JWKS may hold.
pub const MAX_KEYS: usize = 64;
/// The longest `kid` accepted.
pub const MAX_KID_LEN: usize = 128;
/// The JWK member naming what a key may sign (see the module's documentation).
pub const SCOPE_MEMBER: &str = "gamehub_scope";

/// What a key may sign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Any subject in any role: an issuer's key.
    Issuer,
    /// Only service tokens of this subject.
    Service(String),
}

impl Scope {
    /// Whether a token of `subject` in `role` may be signed by a key of this scope.
    pub fn admits(&self, subject: &str, role: Role) -> bool {
        match self {
            Scope::Issuer => true,
            Scope::Service(name) => role == Role::Service && subject == name,
        }
    }

    /// The member's value as written in a JWKS (`None` for an issuer key).
    pub fn as_member(&self) -> Option<String> {
        match self {
            Scope::Issuer => None,
            Scope::Service(name) => Some(format!("service:{name}")),
        }
    }
}

/// One verifying key.
pub struct PublicKey {
    /// Its id, which tokens name in their header.
    pub kid: String,
    /// The one algorithm it verifies.
    pub algorithm: Algorithm,
    /// What it may sign.
    pub scope: Scope,
    pub(super) key: DecodingKey,
}

impl std::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PublicKey")
            .field("kid", &self.kid)
            .field("algorithm", &self.algorithm)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// The verifying keys of a JWKS, by `kid`.
#[derive(Debug, Default, Clone)]
pub struct KeySet {
    keys: HashMap<String, Arc<PublicKey>>,
}

impl KeySet {
    /// The key named `kid`.
    pub fn get(&self, kid: &str) -> Option<&Arc<PublicKey>> {
        self.keys.get(kid)
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key ids, sorted.
    pub fn kids(&self) -> Vec<&str> {
        let mut kids: Vec<&str> = self.keys.keys().map(String::as_str).collect();
        kids.sort_unstable();
        kids
    }
}

/// Parses a JWKS document. Every key must be usable; the error names the first that is
/// not, and why.
pub fn parse_jwks(document: &[u8]) -> Result<KeySet, String> {
    if document.len() > MAX_JWKS_BYTES {
        return Err(format!(
            "the JWKS is {} bytes; at most {MAX_JWKS_BYTES} are read",
            document.len()
        ));
    }
    let value: Value =
        serde_json::from_slice(document).map_err(|e| format!("the JWKS is not JSON: {e}"))?;
    let keys = value
        .get("keys")
        .and_then(Value::as_array)
        .ok_or("a JWKS is an object with an array `keys`")?;
    if keys.len() > MAX_KEYS {
        return Err(format!(
            "the JWKS holds {} keys; at most {MAX_KEYS}",
            keys.len()
        ));
    }
    let mut set = KeySet::default();
    for (i, jwk) in keys.iter().enumerate() {
        let key = parse_key(jwk).map_err(|e| format!("key {i} of the JWKS: {e}"))?;
        if set.keys.contains_key(&key.kid) {
            return Err(format!(
                "key {i} of the JWKS: the kid {:?} is used twice",
                key.kid
            ));
        }
        set.keys.insert(key.kid.clone(), Arc::new(key));
    }
    Ok(set)
}

fn member<'a>(jwk: &'a Value, name: &str) -> Result<Option<&'a str>, String> {
    match jwk.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("`{name}` must be a string")),
    }
}

fn required<'a>(jwk: &'a Value, name: &str) -> Result<&'a str, String> {
    member(jwk, name)?.ok_or_else(|| format!("`{name}` is missing"))
}

fn parse_key(jwk: &Value) -> Result<PublicKey, String> {
    if !jwk.is_object() {
        return Err("a key must be a JSON object".into());
    }
    let kid = required(jwk, "kid")?;
    if kid.is_empty() || kid.len() > MAX_KID_LEN || kid.chars().any(char::is_control) {
        return Err(format!(
            "`kid` must be 1 to {MAX_KID_LEN} printable characters"
        ));
    }
    if let Some(usage) = member(jwk, "use")?
        && usage != "sig"
    {
        return Err(format!("kid {kid:?}: `use` must be \"sig\""));
    }
    let (algorithm, key) = match required(jwk, "kty")? {
        "OKP" => {
            if required(jwk, "crv")? != "Ed25519" {
                return Err(format!(
                    "kid {kid:?}: an OKP key must be on the curve Ed25519"
                ));
            }
            let x = required(jwk, "x")?;
            let bytes = URL_SAFE_NO_PAD
                .decode(x)
                .map_err(|_| format!("kid {kid:?}: `x` is not base64url"))?;
            if bytes.len() != 32 {
                return Err(format!("kid {kid:?}: an Ed25519 key is 32 bytes"));
            }
            let key =
                DecodingKey::from_ed_components(x).map_err(|e| format!("kid {kid:?}: {e}"))?;
            (Algorithm::EdDSA, key)
        }
        "EC" => {
            if required(jwk, "crv")? != "P-256" {
                return Err(format!("kid {kid:?}: an EC key must be on the curve P-256"));
            }
            let (x, y) = (required(jwk, "x")?, required(jwk, "y")?);
            for (name, part) in [("x", x), ("y", y)] {
                let decoded = URL_SAFE_NO_PAD
                    .decode(part)
                    .map_err(|_| format!("kid {kid:?}: `{name}` is not base64url"))?;
                if decoded.len() != 32 {
                    return Err(format!("kid {kid:?}: a P-256 coordinate is 32 bytes"));
                }
            }
            let key =
                DecodingKey::from_ec_components(x, y).map_err(|e| format!("kid {kid:?}: {e}"))?;
            (Algorithm::ES256, key)
        }
        "oct" => {
            return Err(format!(
                "kid {kid:?} is a symmetric key: a JWKS holds public keys only (anyone \
                 verifying with a symmetric key could mint tokens)"
            ));
        }
        other => {
            return Err(format!(
                "kid {kid:?}: key type {other:?} is not accepted; use OKP (Ed25519) or EC (P-256)"
            ));
        }
    };
    if let Some(alg) = member(jwk, "alg")? {
        let expected = match algorithm {
            Algorithm::EdDSA => "EdDSA",
            _ => "ES256",
        };
        if alg != expected {
            return Err(format!(
                "kid {kid:?}: `alg` is {alg:?} but the key is for {expected}"
            ));
        }
    }
    let scope = match member(jwk, SCOPE_MEMBER)? {
        None => Scope::Issuer,
        Some(s) => match s.strip_prefix("service:") {
            Some(name) if !name.is_empty() && name.len() <= super::MAX_SUBJECT_LEN => {
                Scope::Service(name.to_owned())
            }
            _ => {
                return Err(format!(
                    "kid {kid:?}: `{SCOPE_MEMBER}` must read \"service:NAME\""
                ));
            }
        },
    };
    Ok(PublicKey {
        kid: kid.to_owned(),
        algorithm,
        scope,
        key,
    })
}

/// A new Ed25519 key pair: the private key as PKCS#8 PEM (what `GAMEHUB_TOKEN_KEY`
/// and `gamehub token --key` read) and its public JWK, whose `kid` is the key's
/// RFC 7638 thumbprint.
pub struct GeneratedKey {
    /// The private key, PKCS#8 PEM. Keep it secret.
    pub private_pem: String,
    /// The public key as a JWK object, ready for a JWKS.
    pub public_jwk: Value,
    /// Its kid.
    pub kid: String,
}

/// Makes a new Ed25519 key pair for `scope`.
pub fn generate_key(scope: &Scope) -> Result<GeneratedKey, String> {
    use ed25519_dalek::pkcs8::EncodePrivateKey as _;
    let seed: [u8; 32] = rand::random();
    let signing = ed25519_dalek::SigningKey::from_bytes(&seed);
    let private_pem = signing
        .to_pkcs8_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
        .map_err(|e| format!("could not encode the private key: {e}"))?
        .to_string();
    let public_jwk = public_jwk(signing.verifying_key().as_bytes(), scope);
    let kid = public_jwk["kid"].as_str().unwrap_or_default().to_owned();
    Ok(GeneratedKey {
        private_pem,
        public_jwk,
        kid,
    })
}

/// The kid and the public half of an Ed25519 private key in PKCS#8 PEM.
pub fn public_of_private_pem(pem: &str, scope: &Scope) -> Result<(String, Value), String> {
    use ed25519_dalek::pkcs8::DecodePrivateKey as _;
    let signing = ed25519_dalek::SigningKey::from_pkcs8_pem(pem)
        .map_err(|_| "the key file is not an Ed25519 private key in PKCS#8 PEM".to_owned())?;
    let jwk = public_jwk(signing.verifying_key().as_bytes(), scope);
    let kid = jwk["kid"].as_str().unwrap_or_default().to_owned();
    Ok((kid, jwk))
}

/// The kid and the PKCS#8 DER of an Ed25519 private key in PKCS#8 PEM.
pub fn private_der_of_pem(pem: &str) -> Result<(String, Vec<u8>), String> {
    use ed25519_dalek::pkcs8::{DecodePrivateKey as _, EncodePrivateKey as _};
    let signing = ed25519_dalek::SigningKey::from_pkcs8_pem(pem)
        .map_err(|_| "the key file is not an Ed25519 private key in PKCS#8 PEM".to_owned())?;
    let der = signing
        .to_pkcs8_der()
        .map_err(|e| format!("could not encode the private key: {e}"))?;
    let jwk = public_jwk(signing.verifying_key().as_bytes(), &Scope::Issuer);
    let kid = jwk["kid"].as_str().unwrap_or_default().to_owned();
    Ok((kid, der.as_bytes().to_vec()))
}

/// The RFC 7638 thumbprint of an Ed25519 public key: SHA-256 over its required
/// members in lexicographic order, base64url.
fn thumbprint(x: &str) -> String {
    let canonical = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{x}"}}"#);
    URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
}

fn public_jwk(public: &[u8; 32], scope: &Scope) -> Value {
    let x = URL_SAFE_NO_PAD.encode(public);
    let mut jwk = serde_json::json!({
        "kty": "OKP",
        "crv": "Ed25519",
        "alg": "EdDSA",
        "use": "sig",
        "kid": thumbprint(&x),
        "x": x,
    });
    if let (Some(member), Some(object)) = (scope.as_member(), jwk.as_object_mut()) {
        object.insert(SCOPE_MEMBER.into(), Value::String(member));
    }
    jwk
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwks(keys: Vec<Value>) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({ "keys": keys })).unwrap()
    }

    #[test]
    fn generated_keys_parse_with_their_scope_and_kid() {
        let issuer = generate_key(&Scope::Issuer).unwrap();
        let service = generate_key(&Scope::Service("matchmaking".into())).unwrap();
        let set = parse_jwks(&jwks(vec![
            issuer.public_jwk.clone(),
            service.public_jwk.clone(),
        ]))
        .unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(set.get(&issuer.kid).unwrap().scope, Scope::Issuer);
        assert_eq!(
            set.get(&service.kid).unwrap().scope,
            Scope::Service("matchmaking".into())
        );
        let (kid, _) = public_of_private_pem(&service.private_pem, &Scope::Issuer).unwrap();
        assert_eq!(kid, service.kid, "the kid is the public key's thumbprint");
    }

    #[test]
    fn symmetric_and_malformed_keys_are_refused_with_a_reason() {
        let cases = [
            (
                serde_json::json!({"kty": "oct", "kid": "h", "k": "c2VjcmV0"}),
                "symmetric",
            ),
            (
                serde_json::json!({"kty": "OKP", "crv": "Ed25519", "x": "AAAA"}),
                "`kid` is missing",
            ),
            (
                serde_json::json!({"kty": "OKP", "crv": "Ed25519", "kid": "a", "x": "AAAA"}),
                "32 bytes",
            ),
            (
                serde_json::json!({"kty": "RSA", "kid": "r", "n": "AQAB", "e": "AQAB"}),
                "not accepted",
            ),
        ];
        for (key, why) in cases {
            let err = parse_jwks(&jwks(vec![key])).unwrap_err();
            assert!(err.contains(why), "{err}");
        }
        let mut scoped = generate_key(&Scope::Issuer).unwrap().public_jwk;
        scoped[SCOPE_MEMBER] = Value::String("admin".into());
        assert!(
            parse_jwks(&jwks(vec![scoped]))
                .unwrap_err()
                .contains("service:NAME")
        );
        let twice = generate_key(&Scope::Issuer).unwrap().public_jwk;
        assert!(
            parse_jwks(&jwks(vec![twice.clone(), twice]))
                .unwrap_err()
                .contains("twice")
        );
        assert!(parse_jwks(b"[]").unwrap_err().contains("keys"));
        assert!(parse_jwks(b"{").unwrap_err().contains("not JSON"));
    }

    #[test]
    fn a_service_scope_admits_only_its_own_service_tokens() {
        let scope = Scope::Service("gomoku-referee".into());
        assert!(scope.admits("gomoku-referee", Role::Service));
        assert!(!scope.admits("doudizhu-dealer", Role::Service));
        assert!(!scope.admits("gomoku-referee", Role::Operator));
        assert!(Scope::Issuer.admits("alice", Role::Operator));
    }
}
