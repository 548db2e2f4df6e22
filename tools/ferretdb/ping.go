package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"time"
)

// ping sends {ping: 1} as an OP_MSG and succeeds only on a reply with ok: 1, so a port that
// merely accepts connections (another program, a server still starting) is not taken as ready.
// Hand-written rather than through a driver: the scripts that wait for FerretDB run before
// `npm ci`, and this keeps the tool's module to FerretDB alone.
func ping(addr string, timeout time.Duration) error {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))

	doc := bsonDoc(
		[]byte{0x10}, cstring("ping"), le32(1),
		[]byte{0x02}, cstring("$db"), le32(int32(len("admin")+1)), cstring("admin"),
	)
	body := append(le32(0), 0) // flag bits, then section kind 0 (the body document)
	body = append(body, doc...)
	header := append(le32(int32(16+len(body))), le32(1)...) // length, request id
	header = append(header, le32(0)...)                     // responseTo
	header = append(header, le32(2013)...)                  // OP_MSG
	if _, err := conn.Write(append(header, body...)); err != nil {
		return err
	}

	var lenBuf [4]byte
	if _, err := io.ReadFull(conn, lenBuf[:]); err != nil {
		return err
	}
	n := int(binary.LittleEndian.Uint32(lenBuf[:]))
	if n < 21 || n > 16<<20 {
		return fmt.Errorf("not a MongoDB reply (length %d)", n)
	}
	rest := make([]byte, n-4)
	if _, err := io.ReadFull(conn, rest); err != nil {
		return err
	}
	if op := binary.LittleEndian.Uint32(rest[8:12]); op != 2013 {
		return fmt.Errorf("not an OP_MSG reply (opcode %d)", op)
	}
	ok, err := okField(rest[17:]) // after the header's last 12 bytes, flag bits and the section kind
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("ping answered without ok: 1")
	}
	return nil
}

// okField reads the top-level "ok" of a reply document; only the types a ping reply holds are walked.
func okField(doc []byte) (bool, error) {
	if len(doc) < 5 {
		return false, errors.New("short reply document")
	}
	i := 4
	for i < len(doc) && doc[i] != 0 {
		kind := doc[i]
		i++
		start := i
		for i < len(doc) && doc[i] != 0 {
			i++
		}
		name := string(doc[start:i])
		i++
		switch kind {
		case 0x01: // double
			if i+8 > len(doc) {
				return false, errors.New("truncated reply")
			}
			v := math.Float64frombits(binary.LittleEndian.Uint64(doc[i : i+8]))
			if name == "ok" {
				return v == 1, nil
			}
			i += 8
		case 0x10: // int32
			if name == "ok" {
				return binary.LittleEndian.Uint32(doc[i:i+4]) == 1, nil
			}
			i += 4
		case 0x02: // string
			i += 4 + int(binary.LittleEndian.Uint32(doc[i:i+4]))
		default:
			return false, fmt.Errorf("unexpected field %q in the ping reply", name)
		}
	}
	return false, errors.New("no ok field in the ping reply")
}

func bsonDoc(parts ...[]byte) []byte {
	var elems []byte
	for _, p := range parts {
		elems = append(elems, p...)
	}
	elems = append(elems, 0)
	return append(le32(int32(4+len(elems))), elems...)
}

func cstring(s string) []byte { return append([]byte(s), 0) }

func le32(v int32) []byte {
	b := make([]byte, 4)
	binary.LittleEndian.PutUint32(b, uint32(v))
	return b
}
