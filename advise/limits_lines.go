package advise

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Issue 24 item 3. A line arriving in small reads (a pipe hands out 64 KiB, gzip 32 KiB) was
// looked through for its newline from its start after every read once the buffer passed
// 1 MiB: quadratic in the line's length (a 32 MB line took 22 s). And the 64 MiB cap was
// checked only while no newline had come, so a regular file, whose reads return up to the
// whole buffer, carried a line of any length past it. lineChunker looks at each byte once or
// twice (the first and the last newline of each read) and measures every line it completes.

// errLineTooLong is a line past maxLine: the read stops there, naming the line (an input
// with such a line is no access log — a binary, a core dump, the wrong file — and reading
// on would report on whatever follows it; counted malformed it would hide that).
var errLineTooLong = fmt.Errorf("line longer than %d MiB", maxLine>>20)

// errStopped is the context ending inside a line.
var errStopped = errors.New("stopped")

// lineChunker cuts a stream into chunks of whole lines for readLines.
type lineChunker struct {
	r     io.Reader
	carry []byte // the start of a line not yet ended, from the last chunk's read
	// scanned counts the bytes looked at for a newline: at most twice the input.
	scanned int64
}

// next fills buf (its contents dropped) with the carry and more of the input, up to at least
// chunkSize bytes ending with a newline, and returns them. At the end of the input it
// returns the rest with io.EOF. With an error, data holds the whole lines read before it
// (those before a line too long), to be read before the error is reported.
func (c *lineChunker) next(ctx context.Context, buf []byte) (data []byte, err error) {
	buf = append(buf[:0], c.carry...)
	c.carry = c.carry[:0]
	end := 0 // just past the last newline in buf; 0 while there is none
	for {
		if ctx.Err() != nil {
			return buf[:end], errStopped
		}
		if cap(buf)-len(buf) < 64<<10 {
			nb := make([]byte, len(buf), 2*cap(buf))
			copy(nb, buf)
			buf = nb
		}
		old := len(buf)
		n, rerr := c.r.Read(buf[old:cap(buf)])
		buf = buf[:old+n]
		if n > 0 {
			var tooLong bool
			if tooLong, end = c.measure(buf, old, end); tooLong {
				return buf[:end], errLineTooLong
			}
		}
		if rerr == io.EOF {
			if len(buf)-end > maxLine {
				return buf[:end], errLineTooLong
			}
			return buf, io.EOF
		}
		if rerr != nil {
			return buf[:end], rerr
		}
		if len(buf) >= chunkSize && end > 0 {
			c.carry = append(c.carry[:0], buf[end:]...)
			return buf[:end], nil
		}
	}
}

// measure looks at buf[old:], the bytes just read, given end (just past the last newline
// before them): it returns the new end and whether a line ending in them, or the one still
// open, is longer than maxLine. When it is, end is left where that line starts.
func (c *lineChunker) measure(buf []byte, old, end int) (tooLong bool, newEnd int) {
	fresh := buf[old:]
	i := bytes.IndexByte(fresh, '\n')
	if i < 0 {
		c.scanned += int64(len(fresh))
		return len(buf)-end > maxLine, end
	}
	c.scanned += int64(i + 1)
	if old+i-end > maxLine {
		return true, end
	}
	j := bytes.LastIndexByte(fresh, '\n')
	c.scanned += int64(len(fresh) - j)
	if j-i > maxLine {
		// A read longer than the cap may hold a whole line past it (rare: only a buffer
		// grown for a long line reads that much): measure each.
		start := old + i + 1
		for start < old+j {
			k := bytes.IndexByte(buf[start:old+j+1], '\n')
			c.scanned += int64(k + 1)
			if k > maxLine {
				return true, start
			}
			start += k + 1
		}
	}
	end = old + j + 1
	return len(buf)-end > maxLine, end
}

// maxReason bounds a malformed line's reason: parsers quote the field they could not read,
// and a field may be a whole 64 MiB line (the report carried all of it, quoted, 2.5 s of
// escaping for a 32 MB line).
const maxReason = 1 << 10

// clipReason cuts why to maxReason bytes at a rune boundary, saying how much was left out.
func clipReason(why string) string {
	if len(why) <= maxReason {
		return why
	}
	cut := maxReason
	for cut > 0 && !utf8.RuneStart(why[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes more)", why[:cut], len(why)-cut)
}
