package emit

// The Python targets in their real libraries: Debian's python3-requests, python3-httpx and
// python3-aiohttp under /usr/bin/python3 (not a pyenv python3 earlier on PATH, which may lack
// them). The file is not named after its library: a requests.py beside the program would be
// imported in place of requests.
func init() {
	for _, lib := range []struct {
		target Target
		module string
	}{{Requests, "requests"}, {HTTPX, "httpx"}, {AIOHTTP, "aiohttp"}} {
		addRealClient(realClient{
			target:  lib.target,
			file:    "emitted_" + lib.module + ".py",
			command: []string{debianPython},
			check:   [][]string{{debianPython, "-c", "import " + lib.module}},
		})
	}
}

// debianPython is the interpreter the Debian packages install into.
const debianPython = "/usr/bin/python3"
