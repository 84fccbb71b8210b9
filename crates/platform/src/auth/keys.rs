//! [`Keys`]: what a process verifies tokens with, and signs its own with if it holds a
//! private key.
//!
//! - **Verifying**: tokens signed with EdDSA or ES256 are checked against the public key
//!   their header names (`kid`) in the JWKS file (`GAMEHUB_JWKS`), and that key's scope
//!   ([`super::jwks::Scope`]) must admit the token's subject and role. The file is looked
//!   at again every `GAMEHUB_JWKS_REFRESH_MS` and at once when a token names a key it
//!   does not hold, so a key is added or retired without a restart. In development
//!   tokens signed with the shared HMAC key (HS256, `GAMEHUB_JWT_SECRET`) verify too;
//!   production holds no HMAC key and refuses them.
//! - **Signing**: a service signs its own service tokens with its private key
//!   (`GAMEHUB_TOKEN_KEY`, Ed25519 PEM), whose public half is in the JWKS scoped to that
//!   service; in development it may sign with the HMAC key instead.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};

use super::jwks::{self, KeySet};
use super::{Caller, Claims, MAX_SUBJECT_LEN, Role};
use crate::config::env::Secret;
use crate::error::ApiError;

/// How a process's keys are configured (see [`crate::config::CommonConfig`]).
#[derive(Clone, Debug, Default)]
pub struct TokenSettings {
    /// `GAMEHUB_JWT_SECRET`: the shared HMAC key, development only (`None` in
    /// production: HS256 tokens are refused).
    pub hmac: Option<Secret>,
    /// `GAMEHUB_JWKS`: the JWKS file of the public keys that verify tokens.
    pub jwks_file: Option<PathBuf>,
    /// `GAMEHUB_JWKS_REFRESH_MS`: how often the file is looked at for a change.
    pub jwks_refresh: Duration,
    /// `GAMEHUB_TOKEN_KEY`: the Ed25519 private key (PKCS#8 PEM file) this process signs
    /// its own tokens with.
    pub signing_key: Option<PathBuf>,
}

/// Verifies tokens (and signs, when it holds a key that can). Cheap to clone: clones
/// share the keys, the JWKS's refresh and the memory of verified tokens.
#[derive(Clone)]
pub struct Keys(Arc<Inner>);

struct Inner {
    hmac: Option<Hmac>,
    signer: Option<Signer>,
    jwks_file: Option<JwksFile>,
    public: RwLock<Arc<KeySet>>,
    verified: Mutex<Verified>,
}

struct Hmac {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

struct Signer {
    kid: String,
    key: EncodingKey,
}

/// The JWKS file and when it was last looked at.
struct JwksFile {
    path: PathBuf,
    refresh: Duration,
    seen: Mutex<Seen>,
}

struct Seen {
    checked_at: Instant,
    version: Option<(SystemTime, u64)>,
}

/// Tokens verified before, by their whole text, with their caller and expiry: a client
/// sends the same token with every call, and its signature and claims need checking
/// once, not at every call (that was 4% of a Gomoku move's CPU in the referee). Any
/// other text, a changed signature included, misses and is verified in full. A new
/// JWKS empties it, so a retired key's tokens stop at once.
#[derive(Default)]
struct Verified {
    tokens: HashMap<String, (Caller, u64)>,
}

/// Tokens remembered at most; past it the memory starts over (a few hundred bytes each).
const VERIFIED_TOKENS_KEPT: usize = 8_192;

/// Seconds past `exp` a token is still accepted (clocks differ between machines).
const LEEWAY_SECS: u64 = 5;

/// A token naming a key the set lacks makes the file be looked at again, at most this
/// often.
const UNKNOWN_KID_RECHECK: Duration = Duration::from_secs(1);

const EXPIRED: &str = "the token has expired; get a new one";

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys")
            .field("hmac", &self.0.hmac.as_ref().map(|_| "[redacted]"))
            .field("signer", &self.0.signer.as_ref().map(|s| &s.kid))
            .field("jwks_file", &self.0.jwks_file.as_ref().map(|f| &f.path))
            .finish()
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn file_version(path: &std::path::Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

fn read_jwks(path: &std::path::Path) -> Result<KeySet, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("cannot read the JWKS file {}: {e}", path.display()))?;
    jwks::parse_jwks(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

impl Keys {
    /// Development keys: the shared HMAC key signs and verifies (HS256).
    pub fn new(secret: &Secret) -> Self {
        Self::build(Some(secret), None, None, KeySet::default())
    }

    /// The keys `settings` describe: the JWKS file read and the private key loaded now,
    /// so a process with a bad file refuses to start with a message naming it.
    pub fn from_settings(settings: &TokenSettings) -> Result<Self, String> {
        let signer = match &settings.signing_key {
            None => None,
            Some(path) => {
                let pem = std::fs::read_to_string(path).map_err(|e| {
                    format!("cannot read the token key file {}: {e}", path.display())
                })?;
                Some(Self::signer_from_pem(&pem).map_err(|e| format!("{}: {e}", path.display()))?)
            }
        };
        let (file, public) = match &settings.jwks_file {
            None => (None, KeySet::default()),
            Some(path) => {
                let version = file_version(path);
                let set = read_jwks(path)?;
                (
                    Some(JwksFile {
                        path: path.clone(),
                        refresh: settings.jwks_refresh,
                        seen: Mutex::new(Seen {
                            checked_at: Instant::now(),
                            version,
                        }),
                    }),
                    set,
                )
            }
        };
        Ok(Self::build(settings.hmac.as_ref(), signer, file, public))
    }

    /// Keys that verify against `public` only (and sign with `signing_pem`, an Ed25519
    /// private key in PKCS#8 PEM, when given): production's keys without files.
    pub fn with_public_keys(public: KeySet, signing_pem: Option<&str>) -> Result<Self, String> {
        let signer = signing_pem.map(Self::signer_from_pem).transpose()?;
        Ok(Self::build(None, signer, None, public))
    }

    fn signer_from_pem(pem: &str) -> Result<Signer, String> {
        let (kid, der) = jwks::private_der_of_pem(pem)?;
        Ok(Signer {
            kid,
            key: EncodingKey::from_ed_der(&der),
        })
    }

    fn build(
        hmac: Option<&Secret>,
        signer: Option<Signer>,
        jwks_file: Option<JwksFile>,
        public: KeySet,
    ) -> Self {
        let hmac = hmac.map(|secret| Hmac {
            encoding: EncodingKey::from_secret(secret.expose().as_bytes()),
            decoding: DecodingKey::from_secret(secret.expose().as_bytes()),
        });
        Self(Arc::new(Inner {
            hmac,
            signer,
            jwks_file,
            public: RwLock::new(Arc::new(public)),
            verified: Mutex::default(),
        }))
    }

    /// Whether these keys can sign tokens at all.
    pub fn can_mint(&self) -> bool {
        self.0.signer.is_some() || self.0.hmac.is_some()
    }

    /// Whether HS256 tokens (the shared development key) are accepted.
    pub fn accepts_hmac(&self) -> bool {
        self.0.hmac.is_some()
    }

    /// The kid of the private key this process signs with, if it holds one.
    pub fn signing_kid(&self) -> Option<&str> {
        self.0.signer.as_ref().map(|s| s.kid.as_str())
    }

    /// Whether this process can sign tokens of `subject` in `role` that the platform
    /// verifies: with its private key, published in the JWKS with a scope that admits
    /// them, or (development) with the HMAC key. Services check it at start, so a
    /// missing or wrong key is named there and not at the first call.
    pub fn check_signs_as(&self, subject: &str, role: Role) -> Result<(), String> {
        match &self.0.signer {
            Some(signer) => {
                let public = self.public_set();
                if public.is_empty() && self.0.hmac.is_some() {
                    return Ok(());
                }
                match public.get(&signer.kid) {
                    Some(key) if key.scope.admits(subject, role) => Ok(()),
                    Some(_) => Err(format!(
                        "GAMEHUB_TOKEN_KEY (kid {}) is published in the JWKS for another \
                         identity, not for {subject}",
                        signer.kid
                    )),
                    None => Err(format!(
                        "GAMEHUB_TOKEN_KEY (kid {}) is not in the JWKS (GAMEHUB_JWKS): its \
                         tokens would be refused",
                        signer.kid
                    )),
                }
            }
            None if self.0.hmac.is_some() => Ok(()),
            None => Err(format!(
                "{subject} calls other services and needs its own private key: set \
                 GAMEHUB_TOKEN_KEY (`gamehub keys generate` makes one per service)"
            )),
        }
    }

    /// The key ids of the public keys held now.
    pub fn public_kids(&self) -> Vec<String> {
        self.public_set()
            .kids()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// Mints a token for `subject` in `role`, valid for `ttl`: with the private key when
    /// this process holds one, else with the development HMAC key.
    pub fn mint(&self, subject: &str, role: Role, ttl: Duration) -> Result<String, ApiError> {
        crate::error::id("subject", subject, MAX_SUBJECT_LEN)?;
        let iat = now_secs();
        let claims = Claims {
            sub: subject.to_owned(),
            role,
            iat,
            exp: iat.saturating_add(ttl.as_secs().max(1)),
        };
        let (header, key) = match (&self.0.signer, &self.0.hmac) {
            (Some(signer), _) => {
                let mut header = Header::new(Algorithm::EdDSA);
                header.kid = Some(signer.kid.clone());
                (header, &signer.key)
            }
            (None, Some(hmac)) => (Header::new(Algorithm::HS256), &hmac.encoding),
            (None, None) => {
                return Err(ApiError::FailedPrecondition(
                    "this process holds no key that can sign tokens: give it a private key \
                     (GAMEHUB_TOKEN_KEY, or `--key` on the command line)"
                        .into(),
                ));
            }
        };
        jsonwebtoken::encode(&header, &claims, key).map_err(ApiError::internal)
    }

    /// Verifies a token and returns its caller.
    pub fn verify(&self, token: &str) -> Result<Caller, ApiError> {
        self.refresh_if_due(false);
        self.verify_at(token, now_secs())
    }

    /// Reads the JWKS file again now, whatever its time stamp says. Returns the number
    /// of keys held after, or why the file was not taken (the old keys stay).
    pub fn reload_jwks(&self) -> Result<usize, String> {
        let Some(file) = &self.0.jwks_file else {
            return Err("no JWKS file is configured (GAMEHUB_JWKS)".into());
        };
        let version = file_version(&file.path);
        let set = read_jwks(&file.path)?;
        let count = set.len();
        self.install(set);
        let mut seen = file
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        seen.version = version;
        seen.checked_at = Instant::now();
        Ok(count)
    }

    fn install(&self, set: KeySet) {
        *self
            .0
            .public
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(set);
        self.lock_verified().tokens.clear();
    }

    fn public_set(&self) -> Arc<KeySet> {
        self.0
            .public
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Looks at the JWKS file when it is due (or, with `unknown_kid`, when a token named
    /// a key not held and the last look is a second old), and takes a changed file.
    fn refresh_if_due(&self, unknown_kid: bool) {
        let Some(file) = &self.0.jwks_file else {
            return;
        };
        let changed = {
            let mut seen = file
                .seen
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let due = if unknown_kid {
                UNKNOWN_KID_RECHECK
            } else {
                file.refresh
            };
            if seen.checked_at.elapsed() < due {
                return;
            }
            seen.checked_at = Instant::now();
            let version = file_version(&file.path);
            if version == seen.version {
                return;
            }
            seen.version = version;
            true
        };
        if changed {
            match read_jwks(&file.path) {
                Ok(set) => {
                    tracing::info!(path = %file.path.display(), keys = set.len(), "JWKS reloaded");
                    self.install(set);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "the changed JWKS file was not taken; the keys held before stay");
                }
            }
        }
    }

    /// [`Keys::verify`] at `now` (seconds since the Unix epoch) for a token verified
    /// before; a new token is verified against the system clock.
    fn verify_at(&self, token: &str, now: u64) -> Result<Caller, ApiError> {
        let known = self
            .lock_verified()
            .tokens
            .get(token)
            .map(|(caller, exp)| (caller.clone(), *exp));
        if let Some((caller, exp)) = known {
            if now > exp.saturating_add(LEEWAY_SECS) {
                self.lock_verified().tokens.remove(token);
                return Err(ApiError::Unauthenticated(EXPIRED.into()));
            }
            return Ok(caller);
        }
        let (caller, exp) = self.verify_in_full(token)?;
        let mut verified = self.lock_verified();
        if verified.tokens.len() >= VERIFIED_TOKENS_KEPT {
            verified.tokens.clear();
        }
        verified
            .tokens
            .insert(token.to_owned(), (caller.clone(), exp));
        Ok(caller)
    }

    fn lock_verified(&self) -> std::sync::MutexGuard<'_, Verified> {
        self.0
            .verified
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The signature and the claims checked; the caller and the expiry.
    fn verify_in_full(&self, token: &str) -> Result<(Caller, u64), ApiError> {
        let unauthenticated = |why: &str| ApiError::Unauthenticated(why.into());
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| unauthenticated("the bearer token is not a well-formed JWT"))?;
        let claims = match header.alg {
            Algorithm::HS256 => {
                let hmac = self.0.hmac.as_ref().ok_or_else(|| {
                    unauthenticated(
                        "HS256 tokens (the shared development key) are not accepted here: \
                         this deployment verifies EdDSA or ES256 tokens against its JWKS",
                    )
                })?;
                decode(token, &hmac.decoding, Algorithm::HS256)?
            }
            Algorithm::EdDSA | Algorithm::ES256 => {
                let kid = header
                    .kid
                    .as_deref()
                    .ok_or_else(|| unauthenticated("the token's header names no key (kid)"))?;
                let mut key = self.public_set().get(kid).cloned();
                if key.is_none() {
                    self.refresh_if_due(true);
                    key = self.public_set().get(kid).cloned();
                }
                let key = key.ok_or_else(|| {
                    ApiError::Unauthenticated(format!(
                        "no key with the kid {} verifies tokens here: it was retired or \
                         never published in the JWKS",
                        crate::error::excerpt(kid)
                    ))
                })?;
                if key.algorithm != header.alg {
                    return Err(unauthenticated(
                        "the token's algorithm is not the one its key is for",
                    ));
                }
                let claims = decode(token, &key.key, key.algorithm)?;
                if !key.scope.admits(&claims.sub, claims.role) {
                    return Err(ApiError::Unauthenticated(format!(
                        "the key {:?} signs only {}'s service tokens, not a {} token for {}",
                        key.kid,
                        key.scope
                            .as_member()
                            .unwrap_or_default()
                            .trim_start_matches("service:"),
                        claims.role.as_str(),
                        crate::error::excerpt(&claims.sub)
                    )));
                }
                claims
            }
            _ => {
                return Err(unauthenticated(
                    "the token must be signed with EdDSA or ES256 (HS256 in development)",
                ));
            }
        };
        if crate::error::id("sub", &claims.sub, MAX_SUBJECT_LEN).is_err() {
            return Err(unauthenticated("the token's subject is not a valid id"));
        }
        Ok((
            Caller {
                subject: claims.sub,
                role: claims.role,
            },
            claims.exp,
        ))
    }
}

fn decode(token: &str, key: &DecodingKey, algorithm: Algorithm) -> Result<Claims, ApiError> {
    let mut validation = Validation::new(algorithm);
    validation.set_required_spec_claims(&["exp", "sub"]);
    validation.leeway = LEEWAY_SECS;
    jsonwebtoken::decode::<Claims>(token, key, &validation)
        .map(|data| data.claims)
        .map_err(|e| {
            use jsonwebtoken::errors::ErrorKind;
            let why = match e.kind() {
                ErrorKind::ExpiredSignature => EXPIRED,
                ErrorKind::InvalidSignature => "the token's signature does not verify",
                ErrorKind::InvalidToken | ErrorKind::Base64(_) | ErrorKind::Json(_) => {
                    "the bearer token is not a well-formed JWT"
                }
                ErrorKind::MissingRequiredClaim(_) => "the token lacks a sub or exp claim",
                ErrorKind::InvalidAlgorithm => {
                    "the token's algorithm is not the one its key is for"
                }
                _ => "the bearer token is not valid",
            };
            ApiError::Unauthenticated(why.into())
        })
}

#[cfg(test)]
mod tests {
    use super::super::jwks::{GeneratedKey, Scope, generate_key};
    use super::*;

    fn keys() -> Keys {
        Keys::new(&Secret::new("test-secret"))
    }

    fn jwks_of(keys: &[&GeneratedKey]) -> Vec<u8> {
        let keys: Vec<_> = keys.iter().map(|k| k.public_jwk.clone()).collect();
        serde_json::to_vec(&serde_json::json!({ "keys": keys })).unwrap()
    }

    #[test]
    fn a_minted_token_verifies_as_its_caller() {
        let k = keys();
        let token = k
            .mint("alice", Role::Player, Duration::from_secs(60))
            .unwrap();
        let caller = k.verify(&token).unwrap();
        assert_eq!(caller.subject, "alice");
        assert_eq!(caller.role, Role::Player);
    }

    #[test]
    fn a_token_signed_with_another_key_is_refused() {
        let other = Keys::new(&Secret::new("other"));
        let token = other
            .mint("alice", Role::Operator, Duration::from_secs(60))
            .unwrap();
        let err = keys().verify(&token).unwrap_err();
        assert!(matches!(err, ApiError::Unauthenticated(_)));
    }

    #[test]
    fn an_expired_token_is_refused_with_a_reason() {
        let k = keys();
        let claims = Claims {
            sub: "alice".into(),
            role: Role::Player,
            iat: 1,
            exp: 2,
        };
        let hmac = k.0.hmac.as_ref().unwrap();
        let token =
            jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &hmac.encoding).unwrap();
        let err = k.verify(&token).unwrap_err();
        assert!(err.to_string().contains("expired"));
    }

    #[test]
    fn a_remembered_token_still_expires_and_a_changed_one_is_verified_again() {
        let k = keys();
        let token = k
            .mint("alice", Role::Player, Duration::from_secs(60))
            .unwrap();
        let now = now_secs();
        assert_eq!(k.verify_at(&token, now).unwrap().subject, "alice");
        assert_eq!(k.lock_verified().tokens.len(), 1, "remembered");
        // Remembered, it is still refused once past its expiry and the leeway.
        assert!(k.verify_at(&token, now + 60 + LEEWAY_SECS).is_ok());
        let err = k.verify_at(&token, now + 61 + LEEWAY_SECS).unwrap_err();
        assert!(err.to_string().contains("expired"), "{err}");
        assert!(
            k.lock_verified().tokens.is_empty(),
            "forgotten once expired"
        );
        // Another signature on the same claims misses and fails in full.
        assert!(k.verify(&token).is_ok());
        let (body, signature) = token.rsplit_once('.').unwrap();
        let flipped = if signature.starts_with('A') { 'B' } else { 'A' };
        let forged = format!("{body}.{flipped}{}", &signature[1..]);
        let err = k.verify(&forged).unwrap_err();
        assert!(matches!(err, ApiError::Unauthenticated(_)), "{err}");
    }

    #[test]
    fn remembered_tokens_are_bounded() {
        let k = keys();
        for i in 0..VERIFIED_TOKENS_KEPT + 10 {
            let token = k
                .mint(&format!("p{i}"), Role::Player, Duration::from_secs(60))
                .unwrap();
            k.verify(&token).unwrap();
            assert!(k.lock_verified().tokens.len() <= VERIFIED_TOKENS_KEPT);
        }
    }

    #[test]
    fn public_keys_verify_by_kid_and_refuse_the_development_key() {
        let issuer = generate_key(&Scope::Issuer).unwrap();
        let set = jwks::parse_jwks(&jwks_of(&[&issuer])).unwrap();
        let verifier = Keys::with_public_keys(set, None).unwrap();
        assert!(!verifier.can_mint(), "public keys cannot sign");
        let minter = Keys::with_public_keys(KeySet::default(), Some(&issuer.private_pem)).unwrap();
        let token = minter
            .mint("root", Role::Operator, Duration::from_secs(60))
            .unwrap();
        assert_eq!(
            jsonwebtoken::decode_header(&token).unwrap().kid.as_deref(),
            Some(issuer.kid.as_str())
        );
        let caller = verifier.verify(&token).unwrap();
        assert_eq!(
            (caller.subject.as_str(), caller.role),
            ("root", Role::Operator)
        );
        let development = keys()
            .mint("root", Role::Operator, Duration::from_secs(60))
            .unwrap();
        let err = verifier.verify(&development).unwrap_err();
        assert!(err.to_string().contains("HS256"), "{err}");
        // Another issuer's key, unknown here, is refused by its kid.
        let stranger = generate_key(&Scope::Issuer).unwrap();
        let other = Keys::with_public_keys(KeySet::default(), Some(&stranger.private_pem))
            .unwrap()
            .mint("root", Role::Operator, Duration::from_secs(60))
            .unwrap();
        assert!(
            verifier
                .verify(&other)
                .unwrap_err()
                .to_string()
                .contains("kid")
        );
    }

    #[test]
    fn a_service_key_signs_only_its_own_service_tokens() {
        let referee = generate_key(&Scope::Service("gomoku-referee".into())).unwrap();
        let verifier =
            Keys::with_public_keys(jwks::parse_jwks(&jwks_of(&[&referee])).unwrap(), None).unwrap();
        let minter = Keys::with_public_keys(KeySet::default(), Some(&referee.private_pem)).unwrap();
        let own = minter
            .mint("gomoku-referee", Role::Service, Duration::from_secs(60))
            .unwrap();
        assert_eq!(verifier.verify(&own).unwrap().subject, "gomoku-referee");
        for (subject, role) in [
            ("doudizhu-dealer", Role::Service),
            ("root", Role::Operator),
            ("alice", Role::Player),
        ] {
            let forged = minter.mint(subject, role, Duration::from_secs(60)).unwrap();
            let err = verifier.verify(&forged).unwrap_err();
            assert!(err.to_string().contains("signs only"), "{subject}: {err}");
        }
    }

    #[test]
    fn a_rotated_jwks_file_is_taken_without_a_restart() {
        let dir = std::env::temp_dir().join(format!("gamehub-jwks-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("jwks.json");
        let old = generate_key(&Scope::Issuer).unwrap();
        let new = generate_key(&Scope::Issuer).unwrap();
        std::fs::write(&path, jwks_of(&[&old])).unwrap();
        let verifier = Keys::from_settings(&TokenSettings {
            jwks_file: Some(path.clone()),
            jwks_refresh: Duration::from_secs(3600),
            ..TokenSettings::default()
        })
        .unwrap();
        let mint = |key: &GeneratedKey| {
            Keys::with_public_keys(KeySet::default(), Some(&key.private_pem))
                .unwrap()
                .mint("root", Role::Operator, Duration::from_secs(60))
                .unwrap()
        };
        let (old_token, new_token) = (mint(&old), mint(&new));
        assert!(verifier.verify(&old_token).is_ok());
        // The overlap: both keys published; a token of the new key makes the file be
        // read again at once (its kid is unknown), and both verify.
        std::fs::write(&path, jwks_of(&[&old, &new])).unwrap();
        std::thread::sleep(UNKNOWN_KID_RECHECK);
        assert!(verifier.verify(&new_token).is_ok());
        assert!(verifier.verify(&old_token).is_ok());
        // The old key retired: its tokens stop, remembered ones included.
        std::fs::write(&path, jwks_of(&[&new])).unwrap();
        assert_eq!(verifier.reload_jwks().unwrap(), 1);
        assert!(verifier.verify(&old_token).is_err());
        assert!(verifier.verify(&new_token).is_ok());
        // A broken file keeps the keys held.
        std::fs::write(&path, b"{ not json").unwrap();
        assert!(verifier.reload_jwks().is_err());
        assert!(verifier.verify(&new_token).is_ok());
        std::fs::remove_dir_all(&dir).ok();
    }
}
