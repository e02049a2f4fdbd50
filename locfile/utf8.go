package locfile

import (
	"bytes"
	"unicode/utf8"
)

// CheckUTF8 fails, with the line, the column (in characters) and the
// byte offset of the first byte that is not UTF-8, when data is not
// UTF-8. A file that starts with a UTF-16 byte order mark, or with an XML
// declaration of another encoding, is left to its parser, which converts
// it or refuses it. Every parser of this package refuses such a byte
// where the file is read as UTF-8, so that no text is stored with U+FFFD
// in place of the bytes; CheckUTF8 says so before a file is parsed.
func CheckUTF8(data []byte) error {
	if len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		return nil
	}
	if declaresEncoding(data) || utf8.Valid(data) {
		return nil
	}
	if off, line, col, ok := firstNotUTF8(data); ok {
		return notUTF8(line, col, data[off], int64(off))
	}
	return nil
}

// firstNotUTF8 returns the byte offset, line and column (in characters,
// both 1-based) of the first byte of b that is not UTF-8.
func firstNotUTF8(b []byte) (off, line, col int, ok bool) {
	line, col = 1, 1
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i, line, col, true
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return 0, 0, 0, false
}

// notUTF8 is the error of the byte c, not UTF-8, at a position (its byte
// offset in the file when off >= 0).
func notUTF8(line, col int, c byte, off int64) *Error {
	if off >= 0 {
		return errAt(line, col, "the file is not valid UTF-8: byte 0x%02X (byte offset %d); save it as UTF-8", c, off)
	}
	return errAt(line, col, "the file is not valid UTF-8: byte 0x%02X; save it as UTF-8", c)
}

// declaresEncoding reports an XML declaration that names an encoding
// other than UTF-8.
func declaresEncoding(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if !bytes.HasPrefix(data, []byte("<?xml")) {
		return false
	}
	end := bytes.Index(data, []byte("?>"))
	if end < 0 {
		return false
	}
	decl := data[:end]
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return false
	}
	v := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n=")
	if len(v) < 2 || v[0] != '"' && v[0] != '\'' {
		return false
	}
	name, _, _ := bytes.Cut(v[1:], v[:1])
	return !bytes.EqualFold(name, []byte("utf-8")) && !bytes.EqualFold(name, []byte("utf8"))
}
