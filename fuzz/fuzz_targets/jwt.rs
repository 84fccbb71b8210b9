//! Bearer tokens as every call carries them: `Keys::verify` on any text, against the
//! development HMAC key (HS256) and against public keys from a JWKS (EdDSA: an issuer
//! key and a key scoped to one service), the verified-token memory included; and on
//! tokens whose header and claims are the input's two lines (JSON) but whose signature
//! is right (signed with the HMAC key, the issuer key and the service key in turn), so
//! that the header's and the claims' checks are reached, not only the signature's. Also
//! the role names a token carries.
//!
//! Properties: a token that verifies names a subject that is a valid id, and verifies
//! again (from the memory) as the same caller; a token the service key signed verifies
//! only as that service.
#![no_main]

use std::sync::LazyLock;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use gamehub_fuzz::keys::{ISSUER_PEM, SERVICE_PEM, SERVICE_SUBJECT};
use gamehub_platform::auth::jwks::{Scope, parse_jwks, private_der_of_pem, public_of_private_pem};
use gamehub_platform::auth::{Caller, Keys, MAX_SUBJECT_LEN, Role};
use gamehub_platform::config::Secret;
use jsonwebtoken::{Algorithm, EncodingKey};
use libfuzzer_sys::fuzz_target;

/// The development secret's shape: any text; the fuzzer never sees it.
const SECRET: &str = "fuzz-secret-of-the-keys-under-test";

/// Development keys: HS256 with [`SECRET`].
static HMAC: LazyLock<Keys> = LazyLock::new(|| Keys::new(&Secret::new(SECRET)));

/// Production's keys: the JWKS of the fuzz issuer key and the fuzz service key.
static PUBLIC: LazyLock<Keys> = LazyLock::new(|| {
    let scoped = Scope::Service(SERVICE_SUBJECT.to_owned());
    let (_, issuer) = public_of_private_pem(ISSUER_PEM, &Scope::Issuer).expect("issuer key");
    let (_, service) = public_of_private_pem(SERVICE_PEM, &scoped).expect("service key");
    let document = serde_json::json!({ "keys": [issuer, service] }).to_string();
    let set = parse_jwks(document.as_bytes()).expect("the fuzz JWKS");
    Keys::with_public_keys(set, None).expect("verifying keys")
});

/// The kid of the service key.
static SERVICE_KID: LazyLock<String> = LazyLock::new(|| {
    let scoped = Scope::Service(SERVICE_SUBJECT.to_owned());
    public_of_private_pem(SERVICE_PEM, &scoped)
        .expect("service key")
        .0
});

/// What signs the tokens built from the input: (algorithm, key).
static SIGNERS: LazyLock<Vec<(Algorithm, EncodingKey)>> = LazyLock::new(|| {
    let ed = |pem: &str| {
        let (_, der) = private_der_of_pem(pem).expect("a fuzz key");
        EncodingKey::from_ed_der(&der)
    };
    vec![
        (
            Algorithm::HS256,
            EncodingKey::from_secret(SECRET.as_bytes()),
        ),
        (Algorithm::EdDSA, ed(ISSUER_PEM)),
        (Algorithm::EdDSA, ed(SERVICE_PEM)),
    ]
});

fuzz_target!(|data: &[u8]| {
    let Some(text) = gamehub_fuzz::text(data) else {
        return;
    };
    verify(text);
    if let Some((header, claims)) = text.split_once('\n') {
        let message = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header),
            URL_SAFE_NO_PAD.encode(claims)
        );
        for (algorithm, key) in SIGNERS.iter() {
            let signature = jsonwebtoken::crypto::sign(message.as_bytes(), key, *algorithm)
                .expect("a fuzz key signs any message");
            verify(&format!("{message}.{signature}"));
        }
    }
    if let Ok(role) = text.parse::<Role>() {
        assert_eq!(role.as_str().parse::<Role>(), Ok(role));
    }
});

fn verify(token: &str) {
    for keys in [&*HMAC, &*PUBLIC] {
        if let Ok(caller) = keys.verify(token) {
            check(keys, token, &caller);
        }
    }
    if let Ok(caller) = PUBLIC.verify(token) {
        // The service key signs only its own service's tokens.
        let header = jsonwebtoken::decode_header(token).expect("a verified token has a header");
        if header.kid.as_deref() == Some(SERVICE_KID.as_str()) {
            assert_eq!(caller.role, Role::Service);
            assert_eq!(caller.subject, SERVICE_SUBJECT);
        }
    }
}

fn check(keys: &Keys, token: &str, caller: &Caller) {
    assert!(
        gamehub_terms::ids::check(&caller.subject, MAX_SUBJECT_LEN).is_ok(),
        "subject {:?}",
        caller.subject
    );
    if let Ok(again) = keys.verify(token) {
        assert_eq!(&again, caller);
    }
}
