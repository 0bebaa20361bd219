"""``ruma serve`` refuses what it cannot use with one clear line, and warns about clear-text tokens:
a TLS key or certificate that does not load, ``--data`` naming a file or a
path that cannot be created, ``0.0.0.0`` with tokens but without TLS."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.commands import ruma
from tests.support.serve_harness import serving


def serve(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return ruma("serve", "--port", "0", *args, timeout=timeout)


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines()
             if line.startswith("ruma serve") and "created a new store" not in line]
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_data_naming_a_file_or_an_uncreatable_path(tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("not a directory")
    done = serve("--data", str(a_file))
    assert done.returncode == 3 and "is a file" in one_line(done)
    done = serve("--data", str(a_file / "below"))
    assert done.returncode == 3 and str(a_file / "below") in one_line(done)


def test_a_bad_tls_key_or_certificate_is_named_as_such(tmp_path: Path) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed: cannot make a test certificate")
    cert, key, other = tmp_path / "cert.pem", tmp_path / "key.pem", tmp_path / "other.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1"], check=True, capture_output=True)
    subprocess.run([openssl, "genrsa", "-out", str(other), "2048"], check=True, capture_output=True)
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n")
    for cert_file, key_file in ((cert, other), (cert, garbage), (garbage, key)):
        done = serve("--data", str(tmp_path / "data"), "--tls-cert", str(cert_file), "--tls-key", str(key_file))
        line = one_line(done)
        assert done.returncode == 2 and "do not load" in line and "address in use" not in line, line


def test_tokens_in_clear_text_are_warned_about(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text("0123456789abcdef0123456789abcdef read\n")
    with serving(tmp_path / "data", "--host", "0.0.0.0", "--token-file", str(tokens), "--eval-workers", "0",
                 workers=0, readers=0) as (_, _addr):
        pass  # (listening on all interfaces for a moment; no traffic is sent anywhere)
    log = (tmp_path / "data-serve.log").read_text()
    assert "ruma serve: warning: tokens travel in clear text" in log, log
