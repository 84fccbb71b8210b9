//! A TCP link a test can cut silently: [`BlackHole`] listens on a free port and forwards
//! every connection to a target; [`BlackHole::cut`] makes it drop everything in both
//! directions while every socket stays open, as a network that loses packets looks to
//! both ends (no RST, no FIN: nothing arrives, writes pile up in the buffers). New
//! connections are accepted during a cut and then carry nothing, as a half-open link
//! looks to a client whose connect a kernel on its side completed.
//!
//! [`BlackHole::heal`] forwards again on new connections only: the connections that saw
//! the cut stay dead (open, carrying nothing) until the proxy is dropped, so the ends
//! must notice by their own timeouts and keepalives, as after a partition that outlived
//! a middlebox's connection state or the peer's retransmissions. [`BlackHole::resume`]
//! is the kinder partition: old connections carry on where they stopped, as TCP
//! retransmission delivers the held bytes once the network is back.
//!
//! Dropping the proxy closes every socket it holds.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// A connection accepted during a cut: it never forwards anything.
const STILLBORN: u64 = u64::MAX;

/// The largest chunk copied at once, per direction.
const CHUNK_BYTES: usize = 16 * 1024;

/// The state of the link, as every connection's pumps watch it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Link {
    /// Whether everything is dropped.
    cut: bool,
    /// Connections born in an earlier epoch are dead: [`BlackHole::heal`] starts a new
    /// one.
    epoch: u64,
}

/// A forwarding proxy to one target that a test can cut and heal.
pub struct BlackHole {
    /// Where clients connect instead of the target.
    addr: SocketAddr,
    /// What the link is doing; dropping it stops the proxy and closes its sockets.
    link: Arc<watch::Sender<Link>>,
    /// Connections accepted so far (for a test's diagnostics).
    accepted: Arc<AtomicU64>,
    /// Bytes forwarded so far, both directions.
    forwarded: Arc<AtomicU64>,
    /// The listener's task, aborted on drop.
    listener: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl BlackHole {
    /// Starts forwarding `127.0.0.1:<free port>` to `target`.
    pub async fn start(target: SocketAddr) -> BlackHole {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (link, _) = watch::channel(Link {
            cut: false,
            epoch: 0,
        });
        let link = Arc::new(link);
        let accepted = Arc::new(AtomicU64::new(0));
        let forwarded = Arc::new(AtomicU64::new(0));
        let task = tokio::spawn(accept_loop(
            listener,
            target,
            link.subscribe(),
            accepted.clone(),
            forwarded.clone(),
        ));
        BlackHole {
            addr,
            link,
            accepted,
            forwarded,
            listener: Mutex::new(Some(task)),
        }
    }

    /// Starts forwarding to the host and port of `url` (`redis://…`, `postgres://…`,
    /// `http://…`), which must name an IP address or `localhost`.
    pub async fn start_for(url: &str) -> BlackHole {
        BlackHole::start(host_port(url)).await
    }

    /// Where clients connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `url` with its host and port replaced by this proxy's.
    pub fn reroute(&self, url: &str) -> String {
        reroute(url, self.addr)
    }

    /// Drops everything from now on, in both directions, holding every socket open.
    pub fn cut(&self) {
        self.link.send_modify(|l| l.cut = true);
    }

    /// Forwards again, on new connections only: those that saw the cut stay dead.
    pub fn heal(&self) {
        self.link.send_modify(|l| {
            l.cut = false;
            l.epoch += 1;
        });
    }

    /// Forwards again, old connections included (those accepted during the cut
    /// excepted): what they held is delivered now.
    pub fn resume(&self) {
        self.link.send_modify(|l| l.cut = false);
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> u64 {
        self.accepted.load(Ordering::Relaxed)
    }

    /// Bytes forwarded so far, both directions together.
    pub fn forwarded_bytes(&self) -> u64 {
        self.forwarded.load(Ordering::Relaxed)
    }
}

impl Drop for BlackHole {
    fn drop(&mut self) {
        if let Some(task) = self.listener.lock().unwrap().take() {
            task.abort();
        }
        // The pumps see the sender gone (`changed` fails once the last `Arc` is
        // dropped with this struct) and close their sockets.
    }
}

async fn accept_loop(
    listener: TcpListener,
    target: SocketAddr,
    link: watch::Receiver<Link>,
    accepted: Arc<AtomicU64>,
    forwarded: Arc<AtomicU64>,
) {
    loop {
        let Ok((client, _)) = listener.accept().await else {
            continue;
        };
        accepted.fetch_add(1, Ordering::Relaxed);
        let state = *link.borrow();
        let born = if state.cut { STILLBORN } else { state.epoch };
        let (link, forwarded) = (link.clone(), forwarded.clone());
        tokio::spawn(async move {
            let _ = client.set_nodelay(true);
            // A connection born dead never reaches the target: its client waits, as
            // one whose packets are lost does.
            let server = if born == STILLBORN {
                None
            } else {
                TcpStream::connect(target).await.ok()
            };
            let Some(server) = server else {
                // Hold the client's socket open until the proxy is dropped.
                until_dropped(link).await;
                drop(client);
                return;
            };
            let _ = server.set_nodelay(true);
            let (client_read, client_write) = client.into_split();
            let (server_read, server_write) = server.into_split();
            let up = pump(
                client_read,
                server_write,
                link.clone(),
                born,
                forwarded.clone(),
            );
            let down = pump(server_read, client_write, link.clone(), born, forwarded);
            tokio::select! {
                _ = async { tokio::join!(up, down) } => {}
                () = until_dropped(link) => {}
            }
        });
    }
}

/// Waits until the proxy that owns `link` is dropped.
async fn until_dropped(mut link: watch::Receiver<Link>) {
    while link.changed().await.is_ok() {}
}

/// Whether a connection born in `born` forwards now.
fn forwards(link: &Link, born: u64) -> bool {
    !link.cut && link.epoch == born
}

/// Copies `from` to `to` while the link lets this connection through; holds (reads
/// nothing, writes nothing) otherwise.
async fn pump(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    mut link: watch::Receiver<Link>,
    born: u64,
    forwarded: Arc<AtomicU64>,
) {
    let mut buf = vec![0u8; CHUNK_BYTES];
    loop {
        while !forwards(&link.borrow_and_update(), born) {
            if link.changed().await.is_err() {
                return;
            }
        }
        tokio::select! {
            read = from.read(&mut buf) => {
                let n = match read {
                    Ok(0) | Err(_) => {
                        let _ = to.shutdown().await;
                        return;
                    }
                    Ok(n) => n,
                };
                // Read just as the link was cut: held with the rest (lost with a dead
                // connection, delivered on a resume).
                while !forwards(&link.borrow_and_update(), born) {
                    if link.changed().await.is_err() {
                        return;
                    }
                }
                if to.write_all(&buf[..n]).await.is_err() {
                    return;
                }
                forwarded.fetch_add(n as u64, Ordering::Relaxed);
            }
            changed = link.changed() => {
                if changed.is_err() {
                    return;
                }
            }
        }
    }
}

/// The byte span of the authority (`[user[:password]@]host:port`) of `url`.
fn authority_span(url: &str) -> (usize, usize) {
    let start = url
        .find("://")
        .map(|i| i + 3)
        .unwrap_or_else(|| panic!("{url:?} has no scheme"));
    let end = url[start..]
        .find(['/', '?', ','])
        .map_or(url.len(), |i| start + i);
    (start, end)
}

/// `url` with its host and port replaced by `addr`.
fn reroute(url: &str, addr: SocketAddr) -> String {
    let (start, end) = authority_span(url);
    let authority = &url[start..end];
    let host_start = authority.rfind('@').map_or(start, |at| start + at + 1);
    format!("{}{addr}{}", &url[..host_start], &url[end..])
}

/// The address `url` names (an IP address or `localhost`, and a port).
fn host_port(url: &str) -> SocketAddr {
    let (start, end) = authority_span(url);
    let authority = &url[start..end];
    let host_port = authority.rsplit('@').next().unwrap();
    let host_port = host_port.replace("localhost", "127.0.0.1");
    host_port
        .parse()
        .unwrap_or_else(|e| panic!("{url:?}: {host_port:?} is not an IP address and port: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// An echo server on a free port.
    async fn echo() -> SocketAddr {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            loop {
                let (mut socket, _) = listener.accept().await.unwrap();
                tokio::spawn(async move {
                    let (mut r, mut w) = socket.split();
                    let _ = tokio::io::copy(&mut r, &mut w).await;
                });
            }
        });
        addr
    }

    async fn round_trip(socket: &mut TcpStream) -> Option<[u8; 4]> {
        socket.write_all(b"ping").await.unwrap();
        let mut reply = [0u8; 4];
        tokio::time::timeout(Duration::from_millis(300), socket.read_exact(&mut reply))
            .await
            .ok()
            .map(|r| {
                r.unwrap();
                reply
            })
    }

    #[tokio::test]
    async fn a_cut_drops_silently_and_a_heal_serves_only_new_connections() {
        let proxy = BlackHole::start(echo().await).await;
        let mut old = TcpStream::connect(proxy.addr()).await.unwrap();
        assert_eq!(round_trip(&mut old).await, Some(*b"ping"));

        proxy.cut();
        assert_eq!(round_trip(&mut old).await, None, "nothing crosses a cut");
        let mut during = TcpStream::connect(proxy.addr()).await.unwrap();
        assert_eq!(round_trip(&mut during).await, None, "nor a new connection");

        proxy.heal();
        assert_eq!(
            round_trip(&mut old).await,
            None,
            "the old connection stays dead"
        );
        assert_eq!(
            round_trip(&mut during).await,
            None,
            "as does the one of the cut"
        );
        let mut fresh = TcpStream::connect(proxy.addr()).await.unwrap();
        assert_eq!(round_trip(&mut fresh).await, Some(*b"ping"));
        assert_eq!(proxy.accepted(), 3);
    }

    #[tokio::test]
    async fn a_resume_delivers_what_old_connections_hold() {
        let proxy = BlackHole::start(echo().await).await;
        let mut old = TcpStream::connect(proxy.addr()).await.unwrap();
        assert_eq!(round_trip(&mut old).await, Some(*b"ping"));
        proxy.cut();
        assert_eq!(round_trip(&mut old).await, None);
        proxy.resume();
        // The first ping was held, not lost: it comes back, then the second.
        let mut reply = [0u8; 8];
        old.write_all(b"ping").await.unwrap();
        tokio::time::timeout(Duration::from_secs(2), old.read_exact(&mut reply))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&reply, b"pingping");
    }

    #[tokio::test]
    async fn dropping_the_proxy_closes_its_sockets() {
        let proxy = BlackHole::start(echo().await).await;
        let mut held = TcpStream::connect(proxy.addr()).await.unwrap();
        proxy.cut();
        drop(proxy);
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(Duration::from_secs(2), held.read(&mut byte))
            .await
            .expect("closed, not held");
        assert!(matches!(read, Ok(0) | Err(_)));
    }

    #[test]
    fn reroute_keeps_credentials_path_and_query() {
        let addr: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        let pg = "postgres://postgres:pw@127.0.0.1:5432/db?sslmode=disable";
        assert_eq!(host_port(pg), "127.0.0.1:5432".parse().unwrap());
        assert_eq!(
            reroute(pg, addr),
            "postgres://postgres:pw@127.0.0.1:4000/db?sslmode=disable"
        );
        assert_eq!(
            host_port("redis://localhost:6379/0"),
            "127.0.0.1:6379".parse().unwrap()
        );
        assert_eq!(
            reroute("http://127.0.0.1:50051", addr),
            "http://127.0.0.1:4000"
        );
    }
}
