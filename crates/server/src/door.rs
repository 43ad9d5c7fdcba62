//! A cap on the connections one address holds open at once: each costs a file
//! descriptor, and one client must not take them all from the team. A connection past
//! the cap is closed as it is accepted (and logged).

use axum_server::accept::Accept;
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// Open connections by address.
#[derive(Debug, Default)]
struct Open(Mutex<HashMap<IpAddr, usize>>);

impl Open {
    /// Counts one more connection from `ip`, unless it already holds `cap`.
    fn take(self: &Arc<Self>, ip: IpAddr, cap: usize) -> Option<Held> {
        let mut open = self.0.lock().ok()?;
        let count = open.entry(ip).or_default();
        if *count >= cap {
            return None;
        }
        *count += 1;
        Some(Held {
            open: self.clone(),
            ip,
        })
    }
}

/// One counted connection; dropping it frees its place.
#[derive(Debug)]
struct Held {
    open: Arc<Open>,
    ip: IpAddr,
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Ok(mut open) = self.open.0.lock() {
            if let Some(count) = open.get_mut(&self.ip) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    open.remove(&self.ip);
                }
            }
        }
    }
}

/// An acceptor admitting at most `cap` connections per address before `inner` (plain
/// or TLS) takes them.
#[derive(Debug, Clone)]
pub struct PerAddress<A> {
    inner: A,
    cap: usize,
    open: Arc<Open>,
    /// The trusted reverse proxy: every person's connections come from its address, so
    /// capping it would let one person's connections shut the team out.
    proxy: Option<IpAddr>,
}

impl<A> PerAddress<A> {
    pub fn new(inner: A, cap: usize, proxy: Option<IpAddr>) -> Self {
        PerAddress {
            inner,
            cap: cap.max(1),
            open: Arc::default(),
            proxy,
        }
    }
}

impl<A, S> Accept<TcpStream, S> for PerAddress<A>
where
    A: Accept<Counted, S> + Clone + Send + 'static,
    A::Future: Send + 'static,
    S: Send + 'static,
{
    type Stream = A::Stream;
    type Service = A::Service;
    type Future = Pin<Box<dyn Future<Output = io::Result<(A::Stream, A::Service)>> + Send>>;

    fn accept(&self, stream: TcpStream, service: S) -> Self::Future {
        let peer = stream.peer_addr().map(|a| a.ip());
        let held = peer.as_ref().ok().and_then(|ip| {
            let cap = if Some(*ip) == self.proxy {
                usize::MAX
            } else {
                self.cap
            };
            self.open.take(*ip, cap)
        });
        let (inner, cap) = (self.inner.clone(), self.cap);
        let Some(held) = held else {
            // Closed here and now: a refused stream kept inside the returned future stays
            // open for as long as the server keeps that future.
            drop(stream);
            let from = match &peer {
                Ok(ip) => ip.to_string(),
                Err(e) => format!("an unknown address ({e})"),
            };
            let refused = io::Error::other(format!(
                "refused a connection from {from}: it already holds {cap} open"
            ));
            return Box::pin(async move { Err(refused) });
        };
        Box::pin(async move {
            inner
                .accept(
                    Counted {
                        inner: stream,
                        _held: held,
                    },
                    service,
                )
                .await
        })
    }
}

/// A connection counted against its address while it is open.
#[derive(Debug)]
pub struct Counted {
    inner: TcpStream,
    _held: Held,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
