"""Adds the licence notices of the libraries that auditwheel vendored into a repaired wheel.

usage: python wheel_licenses.py BUILT_WHEEL REPAIRED_WHEEL OUT_DIR

auditwheel copies the shared libraries a wheel links (here libgomp and libqhull_r) into
<package>.libs/ but not their licences. For each vendored library this finds the file it was copied
from (ldd of the built wheel's extension on this machine), the Debian package that owns that file
(dpkg -S) and its notice (/usr/share/doc/PACKAGE/copyright), and writes the repaired wheel again to
OUT_DIR with the notice in .dist-info/licenses/vendored/, a License-File line for it, and the
library's licence added to License-Expression; RECORD is rewritten. A vendored library without a
known licence below is an error: add it to LICENSES after reading its notice.
"""
import base64
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile

# SPDX expressions of the libraries that may be vendored, by their name before ".so"
LICENSES = {
    "libgomp": "GPL-3.0-or-later WITH GCC-exception-3.1",
    "libqhull_r": "Qhull",
}


def fail(message):
    sys.exit("wheel_licenses: " + message)


def linked_libraries(built_wheel):
    """{soname: path on this machine} of every library the built wheel's extensions load."""
    found = {}
    with zipfile.ZipFile(built_wheel) as wheel, tempfile.TemporaryDirectory() as scratch:
        for name in wheel.namelist():
            if not re.search(r"\.so(\.|$)", name):
                continue
            path = wheel.extract(name, scratch)
            out = subprocess.run(["ldd", path], capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                match = re.match(r"\s*(\S+) => (/\S+)", line)
                if match:
                    found[match.group(1)] = match.group(2)
    return found


def owning_package(path):
    """The Debian package that installed path (tried as given, resolved, and with /usr merged)."""
    real = os.path.realpath(path)
    candidates = [path, real]
    for p in (path, real):
        candidates.append(p[4:] if p.startswith("/usr/") else "/usr" + p)
    for candidate in candidates:
        r = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout.split(":")[0].strip()
    fail("no Debian package owns %s (dpkg -S); cannot find its licence" % path)


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def main():
    if len(sys.argv) != 4:
        fail("usage: wheel_licenses.py BUILT_WHEEL REPAIRED_WHEEL OUT_DIR")
    built, repaired, out_dir = sys.argv[1:]
    linked = linked_libraries(built)
    with zipfile.ZipFile(repaired) as wheel:
        entries = [(info, wheel.read(info)) for info in wheel.infolist()]
    dist_info = next(info.filename.split("/")[0] for info, _ in entries
                     if info.filename.endswith(".dist-info/METADATA"))
    vendored = sorted({os.path.basename(info.filename) for info, _ in entries
                       if re.match(r"[^/]+\.libs/[^/]+$", info.filename)})
    notices, expressions = {}, []
    for library in vendored:
        stem = re.match(r"(.+?)-[0-9a-f]{8}\.so", library)
        if not stem:
            fail("cannot read the library name of the vendored %s" % library)
        stem = stem.group(1)
        if stem not in LICENSES:
            fail("%s is vendored but its licence is not known here: add it to LICENSES" % library)
        sources = [path for soname, path in linked.items() if soname.startswith(stem + ".so")]
        if len(sources) != 1:
            fail("%s: expected one linked library named %s.so*, found %s" % (library, stem, sources))
        package = owning_package(sources[0])
        with open("/usr/share/doc/%s/copyright" % package, "rb") as f:
            text = f.read()
        header = ("%s in %s.libs/ is %s from Debian's package %s (%s).\nIts licence: %s. "
                  "Its copyright file follows.\n\n" % (library, dist_info.split("-")[0], stem, package,
                                                       sources[0], LICENSES[stem])).encode()
        notices["%s/licenses/vendored/%s.txt" % (dist_info, stem)] = header + text
        expressions.append(LICENSES[stem])
        print("wheel_licenses: %s <- %s (%s): %s" % (library, sources[0], package, LICENSES[stem]))

    files = []
    for info, data in entries:
        if info.filename == dist_info + "/RECORD":
            continue
        if info.filename == dist_info + "/METADATA":
            text = data.decode()
            match = re.search(r"^License-Expression: (.*)$", text, re.M)
            if not match:
                fail("the METADATA has no License-Expression")
            expression = " AND ".join([match.group(1)] + ["(%s)" % e if " " in e else e
                                                          for e in expressions])
            text = text.replace(match.group(0), "License-Expression: " + expression)
            lines = "".join("License-File: vendored/%s\n" % os.path.basename(n) for n in sorted(notices))
            last = list(re.finditer(r"^License-File: .*\n", text, re.M))
            if not last:
                fail("the METADATA has no License-File (pyproject.toml's license-files)")
            text = text[:last[-1].end()] + lines + text[last[-1].end():]
            data = text.encode()
        files.append((info, data))
    for name in sorted(notices):
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        files.append((info, notices[name]))

    os.makedirs(out_dir, exist_ok=True)
    target = os.path.join(out_dir, os.path.basename(repaired))
    record = [record_line(info.filename, data) for info, data in files]
    record.append(dist_info + "/RECORD,,")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in files:
            info.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(info, data)
        info = zipfile.ZipInfo(dist_info + "/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        out.writestr(info, "\n".join(record) + "\n", zipfile.ZIP_DEFLATED)
    print("wheel_licenses: wrote %s" % target)


if __name__ == "__main__":
    main()
