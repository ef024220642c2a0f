"""A resolver that knows no `.invalid` host (RFC 2606), loaded into a child process through
PYTHONPATH: the DNS failure test then fails at the resolver, as a real lookup would, without
sending any query off this machine."""

import socket

_real_getaddrinfo = socket.getaddrinfo


def _getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
    name = host.decode() if isinstance(host, bytes) else str(host)
    if name.rstrip(".").endswith(".invalid"):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    return _real_getaddrinfo(host, *args, **kwargs)


socket.getaddrinfo = _getaddrinfo
