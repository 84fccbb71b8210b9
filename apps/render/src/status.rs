//! A refusal or a failure as one line for people.

/// A status as one line for the player: the server's message (written for players),
/// or what the transport said when there is none.
pub fn describe(status: &tonic::Status) -> String {
    let message = status.message().trim();
    // What the transport (not a service) says when a connection fails or breaks.
    const TRANSPORT: [&str; 7] = [
        "transport",
        "connect",
        "connection",
        "broken pipe",
        "h2 protocol",
        "not ready",
        "stream closed",
    ];
    match status.code() {
        tonic::Code::Unavailable if message.is_empty() => "the server cannot be reached".to_owned(),
        _ if TRANSPORT.iter().any(|t| message.to_lowercase().contains(t)) => {
            format!("the server cannot be reached: {message}")
        }
        tonic::Code::DeadlineExceeded => "the server did not answer in time".to_owned(),
        _ if message.is_empty() => format!("{:?}", status.code()),
        _ => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_messages_are_shown_as_they_are() {
        let status = tonic::Status::failed_precondition("occupied: h8 is already occupied");
        assert_eq!(describe(&status), "occupied: h8 is already occupied");
        assert_eq!(
            describe(&tonic::Status::unavailable("")),
            "the server cannot be reached"
        );
        assert_eq!(
            describe(&tonic::Status::unavailable("tcp connect error")),
            "the server cannot be reached: tcp connect error"
        );
    }
}
