package advise

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 24 item 3: line reading is linear in the line length for every source, the 64 MiB
// cap applies to every source, and a read inside a long line watches the context.

// pipeReader hands out at most n bytes per Read, as a pipe (64 KiB) or gzip (32 KiB) does.
type pipeReader struct {
	r io.Reader
	n int
}

func (p pipeReader) Read(b []byte) (int, error) { return p.r.Read(b[:min(len(b), p.n)]) }

// TestLineChunkerLinear: a 4 MiB line arriving 4 KiB at a time is looked through for its
// newline a bounded number of times per byte (the code before looked through the whole
// buffer after every read past 1 MiB: 3,072 scans of up to 4 MiB, 7.5 GB for this input).
func TestLineChunkerLinear(t *testing.T) {
	long := bytes.Repeat([]byte("a"), 4<<20)
	var in bytes.Buffer
	in.WriteString("GET / 1\n")
	in.Write(long)
	in.WriteString("\nGET / 2\n")
	total := int64(in.Len())
	lc := &lineChunker{r: pipeReader{&in, 4 << 10}}
	var got int64
	for {
		data, err := lc.next(context.Background(), make([]byte, 0, chunkSize))
		got += int64(len(data))
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if got != total {
		t.Fatalf("chunks hold %d bytes, the input %d", got, total)
	}
	if lc.scanned > 3*total {
		t.Errorf("looked at %d bytes for newlines in a %d-byte input: want at most 3× (linear)", lc.scanned, total)
	}
}

// TestLongLineStopsOnCancel: Ctrl-C inside an endless line stops the read at once instead of
// reading on to the 64 MiB cap.
func TestLongLineStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var read int64
	src := readerFunc(func(b []byte) (int, error) {
		n := min(len(b), 64<<10)
		for i := range n {
			b[i] = 'a'
		}
		read += int64(n)
		if read >= 2<<20 {
			cancel()
		}
		return n, nil
	})
	lc := &lineChunker{r: src}
	_, err := lc.next(ctx, make([]byte, 0, chunkSize))
	if !errors.Is(err, errStopped) {
		t.Errorf("err = %v, want the read stopped", err)
	}
	if read > 4<<20 {
		t.Errorf("read %d MiB after the cancel at 2 MiB, want it to stop at once", read>>20)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(b []byte) (int, error) { return f(b) }

// TestLongLineCapEverySource: a line one byte past 64 MiB is an error naming file:line and
// the cap, whether it comes from a regular file, a pipe or a .gz (the code before let it
// through from a regular file, whose reads return up to the whole buffer at once).
func TestLongLineCapEverySource(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MiB file")
	}
	dir := t.TempDir()
	var doc bytes.Buffer
	doc.WriteString("latency_s\n1.5\n2.5\n")
	doc.Write(bytes.Repeat([]byte("7"), maxLine+1))
	doc.WriteString("\n3.5\n")
	plain := filepath.Join(dir, "long.log")
	if err := os.WriteFile(plain, doc.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	zw.Write(doc.Bytes())
	zw.Close()
	gzName := filepath.Join(dir, "long.log.gz")
	if err := os.WriteFile(gzName, gz.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, file, want string
		stdin            io.Reader
	}{
		{"regular file", plain, plain + ":4: line longer than 64 MiB", nil},
		{"gzip", gzName, gzName + ":4: line longer than 64 MiB", nil},
		{"pipe", "-", "(stdin):4: line longer than 64 MiB", pipeReader{bytes.NewReader(doc.Bytes()), 64 << 10}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Run(context.Background(), Options{Files: []string{c.file}, Stdin: c.stdin, Format: FormatCSV})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// TestMalformedReasonBounded: a malformed line's reason quotes the field it could not read;
// a 2 MB field is cut to 1 KiB in the sample (the report carried all of it, quoted).
func TestMalformedReasonBounded(t *testing.T) {
	doc := "latency_ms\n12\n" + strings.Repeat("x", 2<<20) + "\n13\n"
	res, err := Run(context.Background(), Options{Files: []string{"-"}, Stdin: strings.NewReader(doc), Format: FormatCSV})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source.Malformed != 1 || len(res.Source.MalformedSample) != 1 {
		t.Fatalf("source = %+v, want one malformed line", res.Source)
	}
	if s := res.Source.MalformedSample[0]; len(s) > 2<<10 || !strings.HasPrefix(s, "(stdin):3: latency \"xxx") || !strings.HasSuffix(s, "(2096154 bytes more)") {
		t.Errorf("sample = %.80q… (%d bytes), want (stdin):3: and the reason cut to 1 KiB", s, len(s))
	}
}

// FuzzLineChunker: whatever the input and however it is read, the chunks are the input in
// order, each but the last ending with a newline.
func FuzzLineChunker(f *testing.F) {
	for _, s := range []string{"a\nb\n", "no newline", "\n\n\n", "x\r\ny"} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, in []byte, step int) {
		step = 1 + abs(step)%97
		lc := &lineChunker{r: pipeReader{bytes.NewReader(in), step}}
		var got []byte
		for {
			data, err := lc.next(context.Background(), make([]byte, 0, chunkSize))
			got = append(got, data...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(data) == 0 || data[len(data)-1] != '\n' {
				t.Fatalf("chunk %q does not end a line", data)
			}
		}
		if !bytes.Equal(got, in) {
			t.Fatalf("chunks %q, input %q", got, in)
		}
		if lc.scanned > 3*int64(len(in))+3 {
			t.Fatalf("scanned %d bytes of %d", lc.scanned, len(in))
		}
	})
}
