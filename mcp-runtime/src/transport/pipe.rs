//! stdin and stdout as non-blocking pipes driven by the runtime's I/O
//! driver, when they are pipes or sockets (as an MCP client makes them):
//! a line is read and an answer written on the worker that runs the
//! connection, instead of through tokio's blocking thread pool, which costs
//! a thread hand-off (futex wake-ups) on every read and every write.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use rustix::fs::{FileType, OFlags};
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A pipe or socket in non-blocking mode; its file status flags are put
/// back when dropped (the open file may be shared with the parent).
pub(crate) struct Pipe {
    fd: AsyncFd<OwnedFd>,
    flags: OFlags,
}

impl Pipe {
    /// `fd` as a non-blocking pipe; `fd` back if it is something else (a
    /// terminal, whose mode the shell shares; a file, which epoll does not
    /// take) or the runtime has no I/O driver.
    pub(crate) fn new(fd: OwnedFd) -> Result<Pipe, OwnedFd> {
        let kind = match rustix::fs::fstat(&fd) {
            Ok(stat) => FileType::from_raw_mode(stat.st_mode),
            Err(_) => return Err(fd),
        };
        if !matches!(kind, FileType::Fifo | FileType::Socket) {
            return Err(fd);
        }
        // A runtime built without its I/O driver panics when the fd is
        // registered rather than failing: such a runtime keeps the
        // blocking-pool stdio, on this copy.
        let Ok(copy) = rustix::io::fcntl_dupfd_cloexec(&fd, 0) else { return Err(fd) };
        let Ok(flags) = rustix::fs::fcntl_getfl(&fd) else { return Err(fd) };
        if rustix::fs::fcntl_setfl(&fd, flags | OFlags::NONBLOCK).is_err() {
            return Err(fd);
        }
        let registered = std::panic::catch_unwind(move || {
            // `try_new` is deprecated because a `T` may change the fd it
            // returns; an `OwnedFd` cannot, so this use is sound (and
            // `register`, the replacement, needs `unsafe`, which the
            // workspace forbids).
            #[allow(deprecated)]
            AsyncFd::try_new(fd).map_err(|error| error.into_parts().0)
        });
        match registered {
            Ok(Ok(fd)) => Ok(Pipe { fd, flags }),
            Ok(Err(fd)) => {
                let _ = rustix::fs::fcntl_setfl(&fd, flags);
                Err(fd)
            }
            Err(_) => {
                let _ = rustix::fs::fcntl_setfl(&copy, flags);
                Err(copy)
            }
        }
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        let _ = rustix::fs::fcntl_setfl(self.fd.get_ref(), self.flags);
    }
}

impl AsyncRead for Pipe {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.fd.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            match guard.try_io(|fd| rustix::io::read(fd.get_ref().as_fd(), &mut *unfilled).map_err(io::Error::from)) {
                Ok(read) => {
                    buf.advance(read?);
                    return Poll::Ready(Ok(()));
                }
                Err(_would_block) => continue,
            }
        }
    }
}

impl AsyncWrite for Pipe {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, bytes: &[u8]) -> Poll<io::Result<usize>> {
        loop {
            let mut guard = ready!(self.fd.poll_write_ready(cx))?;
            match guard.try_io(|fd| rustix::io::write(fd.get_ref().as_fd(), bytes).map_err(io::Error::from)) {
                Ok(written) => return Poll::Ready(written),
                Err(_would_block) => continue,
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
