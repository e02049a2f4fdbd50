package mapping

import "github.com/croql/croql/schema"

// ShardKeyColumn is the column that a sharded engine's tables placed
// with their string (see [Mapping.Colocated]) hold besides the mapping's
// columns: the id of the string's master, which the loader fills, and by
// which the DDL places the row.
const ShardKeyColumn = "shard_key"

// Colocated returns the tables that a sharded engine places with their
// string, by [ShardKeyColumn]: the table of the strings context's root
// object, its element tables and join tables, and, through a join table,
// elements that belong to one master string (objects with a StringID
// field: translations, which a master shares with its duplicates only),
// with their own element tables (votes, approvals). A duplicate is placed
// with its master, so "a string's translations" and everything under them
// is on the string's shard. Elements shared project-wide through a join
// table (labels), and the tables of the other contexts, are placed by
// their key (see [Mapping.ShardKeys]).
func (m *Mapping) Colocated() map[string]bool {
	out := map[string]bool{}
	if m.cat == nil {
		return out
	}
	for _, c := range m.cat.Contexts {
		if c.Name == schema.CtxStrings && c.Root != nil {
			m.colocate(c.Root, out)
		}
	}
	return out
}

// colocate adds the table of o and the tables under it to out.
func (m *Mapping) colocate(o *schema.Object, out map[string]bool) {
	t := m.Tables[o.Name]
	if t == nil || out[t.Name] {
		return
	}
	out[t.Name] = true
	for _, f := range o.Fields {
		ch := t.Children[f.Name]
		if f.Type.Kind != schema.Collection || f.Type.Obj == nil || ch == nil {
			continue
		}
		if ch.Through == "" {
			m.colocate(f.Type.Obj, out)
			continue
		}
		out[ch.Through] = true
		if g := f.Type.Obj.GoType; g != nil {
			if _, ok := g.FieldByName("StringID"); ok {
				m.colocate(f.Type.Obj, out)
			}
		}
	}
}
