package store

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// placement is how a load on a sharded engine places the rows that go
// with their string (mapping.Colocated): each gets, in
// mapping.ShardKeyColumn, the id of its string's master. A string that
// lists a translation stored before (with its master, which comes first)
// is a duplicate of that master and takes its shard key; any other
// string is a master and takes its own id. A translation listed by
// strings of two different masters has no one shard and is refused.
type placement struct {
	// tables are the tables placed with their string.
	tables map[string]bool
	// key is the shard key of the string being stored.
	key int64
	// placed is the shard key each keyed row was stored with, by Go type
	// and key.
	placed map[reflect.Type]map[int64]int64
	// translation is the Go type of translations.
	translation reflect.Type
}

// newPlacement returns the placement of a load in dialect d, nil when d
// is not sharded.
func newPlacement(d compile.Dialect, m *mapping.Mapping) *placement {
	if _, ok := d.(compile.Sharding); !ok {
		return nil
	}
	return &placement{tables: m.Colocated(), placed: map[reflect.Type]map[int64]int64{},
		translation: reflect.TypeFor[schema.Translation]()}
}

// holds reports whether table is placed with its string.
func (p *placement) holds(table string) bool { return p != nil && p.tables[table] }

// shardKey is the shard key of the string being stored.
func (p *placement) shardKey() int64 {
	if p == nil {
		return 0
	}
	return p.key
}

// start chooses the shard key of obj, an object of a context, before
// its rows are stored.
func (p *placement) start(obj any) {
	if p == nil {
		return
	}
	s, ok := obj.(*schema.SourceString)
	if !ok {
		p.key = 0
		return
	}
	p.key = s.ID
	for _, t := range s.Translations {
		if k, ok := p.placed[p.translation][t.ID]; ok {
			p.key = k
			break
		}
	}
}

// stored records that v, of key (keyed: the table has a key), is stored
// with the current shard key, and returns that key.
func (p *placement) stored(v reflect.Value, key int64, keyed bool) int64 {
	if keyed {
		m := p.placed[v.Type()]
		if m == nil {
			m = map[int64]int64{}
			p.placed[v.Type()] = m
		}
		m[key] = p.key
	}
	return p.key
}

// again checks that v, of key, stored before (shard: in a table placed
// with its string), is listed again under the same master.
func (p *placement) again(shard bool, v reflect.Value, key int64) error {
	if p == nil || !shard {
		return nil
	}
	if k := p.placed[v.Type()][key]; k != p.key {
		name := strings.ToLower(v.Type().Name())
		return fmt.Errorf("store: %s %d is listed under master string %d and under master string %d: on a sharded engine a %s goes with one master string and its duplicates",
			name, key, k, p.key, name)
	}
	return nil
}
