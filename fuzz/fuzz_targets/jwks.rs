//! Public-key token configuration as read from files: a JWKS document (`GAMEHUB_JWKS`,
//! `parse_jwks`: Ed25519 and P-256 keys by `kid`, scopes, limits, symmetric keys refused)
//! and a private key file (`GAMEHUB_TOKEN_KEY`, `gamehub token --key`: Ed25519 PKCS#8
//! PEM), the input read as both.
//!
//! Properties: a parsed set holds at most `MAX_KEYS` keys, each found by its own kid of
//! at most `MAX_KID_LEN` bytes; a fixed token signed by the fuzz issuer key verifies
//! against the set only when the set holds a key of that kid; a private key file gives
//! the same kid whether read for its public half or for signing, and keys made with it
//! can mint.
#![no_main]

use std::sync::LazyLock;
use std::time::Duration;

use gamehub_fuzz::keys::ISSUER_PEM;
use gamehub_platform::auth::jwks::{
    self, KeySet, MAX_KEYS, MAX_KID_LEN, Scope, parse_jwks, private_der_of_pem,
    public_of_private_pem,
};
use gamehub_platform::auth::{Keys, Role};
use libfuzzer_sys::fuzz_target;

/// A player token signed by the fuzz issuer key, and that key's kid.
static TOKEN: LazyLock<(String, String)> = LazyLock::new(|| {
    let (kid, _) = public_of_private_pem(ISSUER_PEM, &Scope::Issuer).expect("the issuer key");
    let keys = Keys::with_public_keys(KeySet::default(), Some(ISSUER_PEM)).expect("signing keys");
    let token = keys
        .mint(
            "alice",
            Role::Player,
            Duration::from_secs(3600 * 24 * 365 * 50),
        )
        .expect("a token");
    (token, kid)
});

fuzz_target!(|data: &[u8]| {
    if let Ok(set) = parse_jwks(data) {
        assert!(set.len() <= MAX_KEYS, "{} keys", set.len());
        let kids: Vec<String> = set.kids().into_iter().map(str::to_owned).collect();
        for kid in &kids {
            assert!(kid.len() <= MAX_KID_LEN, "kid of {} bytes", kid.len());
            let key = set.get(kid).expect("a listed kid finds its key");
            assert_eq!(&key.kid, kid);
        }
        let (token, kid) = &*TOKEN;
        let holds_kid = set.get(kid).is_some();
        let keys = Keys::with_public_keys(set, None).expect("verifying keys need no signer");
        if keys.verify(token).is_ok() {
            assert!(holds_kid, "verified without a key of kid {kid}");
        }
    }
    let Some(text) = gamehub_fuzz::text(data) else {
        return;
    };
    let public = public_of_private_pem(text, &Scope::Issuer);
    let private = private_der_of_pem(text);
    assert_eq!(
        public.is_ok(),
        private.is_ok(),
        "one reader took the key, the other not"
    );
    if let (Ok((public_kid, jwk)), Ok((private_kid, _))) = (public, private) {
        assert_eq!(public_kid, private_kid);
        let document = serde_json::json!({ "keys": [jwk] }).to_string();
        let set = jwks::parse_jwks(document.as_bytes()).expect("its own public half parses");
        assert!(set.get(&public_kid).is_some());
        let keys = Keys::with_public_keys(set, Some(text)).expect("the key signs");
        assert!(keys.can_mint());
    }
});
