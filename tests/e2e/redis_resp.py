"""A small binary-safe Redis client for the server tests (python3 only, no packages).

Replies come back as Python values: int, bytes (bulk strings, None for nil), str (simple
strings), list (arrays and maps, flat as RESP2 sends them) and ReplyError for error replies,
returned rather than raised so a test can check them. Used as a module by the test scripts
and from the command line:

    python3 redis_resp.py PORT COMMAND [ARG ...]     prints the reply, one array element a line
"""
import socket
import sys


class ReplyError(str):
    """An error reply; its text is the message without the leading '-'."""


class Client:
    def __init__(self, port, host="127.0.0.1", timeout=30):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = b""

    def close(self):
        self.sock.close()

    @staticmethod
    def encode(args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if isinstance(a, int):
                a = str(a)
            if isinstance(a, str):
                a = a.encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)

    def call(self, *args):
        self.sock.sendall(self.encode(args))
        return self.read_reply()

    def pipeline(self, commands):
        """Sends every command, then reads all the replies in order."""
        self.sock.sendall(b"".join(self.encode(c) for c in commands))
        return [self.read_reply() for _ in commands]

    def _fill(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill(len(self.buf) + 1)
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read_reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return ReplyError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            self._fill(n + 2)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read_reply() for _ in range(n)]
        raise ValueError("unexpected reply line %r" % line)


def read_commands(path):
    """The commands of an AOF file (RESP arrays of bulk strings), as lists of bytes."""
    data = open(path, "rb").read()
    pos, commands = 0, []
    while pos < len(data):
        assert data[pos:pos + 1] == b"*", "not a command at byte %d" % pos
        end = data.index(b"\r\n", pos)
        count, pos = int(data[pos + 1:end]), end + 2
        args = []
        for _ in range(count):
            end = data.index(b"\r\n", pos)
            n = int(data[pos + 1:end])
            args.append(data[end + 2:end + 2 + n])
            pos = end + 2 + n + 2
        commands.append(args)
    return commands


def show(reply):
    if isinstance(reply, list):
        for r in reply:
            show(r)
    elif isinstance(reply, bytes):
        print(reply.decode(errors="replace"))
    elif isinstance(reply, ReplyError):
        print("(error) " + reply)
    else:
        print(reply)


if __name__ == "__main__":
    client = Client(int(sys.argv[1]))
    show(client.call(*sys.argv[2:]))
