//! The door's side facing the listener: the acceptor that admits each connection within
//! the caps, and the stream that reports its reads and writes to the door and fails them
//! once the door has closed it to make room.

use super::{Caps, Door, Held, Refusal, LIGHT_ADDRESS};
use axum_server::accept::Accept;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// An acceptor admitting connections within [`Caps`] before `inner` (plain or TLS)
/// takes them.
#[derive(Debug, Clone)]
pub struct Capped<A> {
    inner: A,
    caps: Caps,
    open: Door,
    /// The trusted reverse proxy: every person's connections come from its address, so
    /// capping it per address would let one person's connections shut the team out.
    proxy: Option<IpAddr>,
}

impl<A> Capped<A> {
    /// Admits connections to `inner` within `caps`, counting them in `door` (the one the
    /// router's answering layer is given).
    pub fn new(inner: A, caps: Caps, proxy: Option<IpAddr>, door: Door) -> Self {
        Capped {
            inner,
            caps: Caps {
                total: caps.total.max(1),
                per_address: caps.per_address.max(1),
            },
            open: door,
            proxy,
        }
    }
}

impl<A, S> Accept<TcpStream, S> for Capped<A>
where
    A: Accept<Counted, S> + Clone + Send + 'static,
    A::Future: Send + 'static,
    S: Send + 'static,
{
    type Stream = A::Stream;
    type Service = A::Service;
    type Future = Pin<Box<dyn Future<Output = io::Result<(A::Stream, A::Service)>> + Send>>;

    fn accept(&self, stream: TcpStream, service: S) -> Self::Future {
        let peer = stream.peer_addr();
        let held = match &peer {
            Ok(peer) => self.open.take(
                *peer,
                self.caps,
                crate::caller::is_proxy(peer.ip(), self.proxy),
            ),
            Err(_) => Err(Refusal::Full),
        };
        let inner = self.inner.clone();
        let held = match held {
            Ok(held) => held,
            Err(refusal) => {
                // Closed here and now: a refused stream kept inside the returned future
                // stays open for as long as the server keeps that future.
                drop(stream);
                let from = match &peer {
                    Ok(peer) => peer.ip().to_string(),
                    Err(e) => format!("an unknown address ({e})"),
                };
                let Caps { total, per_address } = self.caps;
                let why = match refusal {
                    Refusal::Full => format!("the server holds {total} connections, its cap"),
                    Refusal::Address => format!("it already holds {per_address} open"),
                    Refusal::Reserved => format!(
                        "the last places of the {total} are kept for addresses holding fewer than {LIGHT_ADDRESS}"
                    ),
                };
                let why = format!("refused a connection from {from}: {why}");
                self.open.log_refusal(&why);
                // Logged here, counted; the server's handler of accept errors passes over
                // this kind.
                let refused = io::Error::new(io::ErrorKind::ConnectionRefused, why);
                return Box::pin(async move { Err(refused) });
            }
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

/// A connection counted against the caps while it is open.
#[derive(Debug)]
pub struct Counted {
    inner: TcpStream,
    _held: Held,
}

impl Counted {
    fn evicted(&self) -> bool {
        self._held.activity.evicted.load(Ordering::Acquire)
    }

    /// Notes a write that went out, or the task to wake if the door evicts the
    /// connection while the write waits (a client that reads nothing).
    fn after_write(
        &self,
        cx: &Context<'_>,
        written: Poll<io::Result<usize>>,
    ) -> Poll<io::Result<usize>> {
        let activity = &self._held.activity;
        match written {
            Poll::Ready(Ok(n)) if n > 0 => {
                let now = self._held.open.now_ms();
                activity.last_active_ms.store(now, Ordering::Release);
            }
            Poll::Pending => {
                *activity.writer.lock().unwrap_or_else(|p| p.into_inner()) =
                    Some(cx.waker().clone());
                if self.evicted() {
                    return Poll::Ready(Err(evicted()));
                }
            }
            Poll::Ready(_) => {}
        }
        written
    }
}

/// The error a connection evicted by the door reads or writes with.
fn evicted() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionAborted,
        "closed to make room: every place was taken and it was idle the longest",
    )
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let activity = self._held.activity.clone();
        if activity.evicted.load(Ordering::Acquire) {
            return Poll::Ready(Err(evicted()));
        }
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Pending => {
                *activity.reader.lock().unwrap_or_else(|p| p.into_inner()) =
                    Some(cx.waker().clone());
                // Evicted between the check above and the waker's storing: the door found
                // no waker to wake, so this read ends here.
                if activity.evicted.load(Ordering::Acquire) {
                    return Poll::Ready(Err(evicted()));
                }
                Poll::Pending
            }
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    let now = self._held.open.now_ms();
                    activity.last_active_ms.store(now, Ordering::Release);
                }
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.evicted() {
            return Poll::Ready(Err(evicted()));
        }
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.after_write(cx, written)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.evicted() {
            return Poll::Ready(Err(evicted()));
        }
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
        if self.evicted() {
            return Poll::Ready(Err(evicted()));
        }
        let written = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.after_write(cx, written)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
