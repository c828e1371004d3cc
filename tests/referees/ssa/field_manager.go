// One object's server-side apply state, advanced as kube-apiserver's field manager advances it:
// structured-merge-diff's merge.Updater does Apply and Update, wrapped in what the apiserver adds
// around it (managedfields/internal): the "current-operation" trick of the managed-fields updater
// for updates, the strip-meta set, the reset fields (status of kinds with a status subresource)
// given to the updater as ignored fields, managers identified by name and operation.
package main

import (
	"fmt"

	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v4/merge"
	"sigs.k8s.io/structured-merge-diff/v4/typed"
	"sigs.k8s.io/structured-merge-diff/v4/value"
)

// Fields no manager ever owns (internal/stripmeta.go).
var strip_set = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "selfLink"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "clusterName"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

// Metadata the server sets; never part of what is compared or owned.
var server_metadata = []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink"}

type conflict struct {
	Manager string `json:"manager"`
	Field   string `json:"field"`
}

type object_state struct {
	pt          typed.ParseableType
	api_version string
	kind        string
	updater     merge.Updater
	live        *typed.TypedValue // nil: the object does not exist
	managed     fieldpath.ManagedFields
	sent        *fieldpath.Set // every field any request of the sequence carried
}

// The referee serves one version per kind, so conversion is the identity.
type identity_converter struct{}

func (identity_converter) Convert(v *typed.TypedValue, _ fieldpath.APIVersion) (*typed.TypedValue, error) {
	return v, nil
}
func (identity_converter) IsMissingVersionError(error) bool { return false }

func new_object_state(pt typed.ParseableType, api_version, kind string, reset_fields []string) *object_state {
	ignored := fieldpath.NewSet()
	for _, f := range reset_fields {
		ignored.Insert(fieldpath.MakePathOrDie(f))
	}
	return &object_state{
		pt: pt, api_version: api_version, kind: kind,
		updater: merge.Updater{
			Converter:     identity_converter{},
			IgnoredFields: map[fieldpath.APIVersion]*fieldpath.Set{fieldpath.APIVersion(api_version): ignored},
		},
		managed: fieldpath.ManagedFields{},
		sent:    fieldpath.NewSet(),
	}
}

func manager_key(name, operation string) string { return name + "/" + operation }

func (s *object_state) strip(key string) {
	vs, ok := s.managed[key]
	if !ok {
		return
	}
	set := vs.Set().Difference(strip_set)
	if set.Empty() {
		delete(s.managed, key)
	} else {
		s.managed[key] = fieldpath.NewVersionedSet(set, vs.APIVersion(), vs.Applied())
	}
}

func (s *object_state) note_sent(obj *typed.TypedValue) error {
	set, err := obj.ToFieldSet()
	if err != nil {
		return err
	}
	s.sent = s.sent.Union(set)
	return nil
}

// note_changed counts as sent what a write changed: a client that writes back the object it read
// sends the server's defaults too, but did not choose them.
func (s *object_state) note_changed(obj *typed.TypedValue) error {
	if s.live == nil {
		return s.note_sent(obj)
	}
	cmp, err := s.live.Compare(obj)
	if err != nil {
		return err
	}
	s.sent = s.sent.Union(cmp.Added).Union(cmp.Modified)
	return nil
}

// apply merges `config` for `manager`; a refusal returns the conflicts and leaves the state as it was.
func (s *object_state) apply(manager string, force bool, config map[string]interface{}) ([]conflict, error) {
	cfg, err := s.pt.FromUnstructured(config)
	if err != nil {
		return nil, fmt.Errorf("apply configuration: %v", err)
	}
	if err := s.note_sent(cfg); err != nil {
		return nil, err
	}
	live := s.live
	if live == nil {
		meta, _ := config["metadata"].(map[string]interface{})
		name, _ := meta["name"].(string)
		ns, _ := meta["namespace"].(string)
		if live, err = s.pt.FromUnstructured(zero_object(s.api_version, s.kind, name, ns)); err != nil {
			return nil, err
		}
	}
	before := s.managed.Copy() // a refused apply stores nothing
	if len(s.managed) == 0 {
		// internal/skipnonapplied.go: the first apply to an object nobody manages gives what
		// it already holds to "before-first-apply", as an update from the kind's empty object.
		empty, err := s.pt.FromUnstructured(zero_object(s.api_version, s.kind, "", ""))
		if err != nil {
			return nil, err
		}
		if err := s.record_update(empty, live, "before-first-apply"); err != nil {
			return nil, err
		}
	}
	key := manager_key(manager, "Apply")
	managed := s.managed.Copy()
	merged, managed, err := s.updater.Apply(live, cfg, fieldpath.APIVersion(s.api_version), managed, key, force)
	if err != nil {
		s.managed, before = before, s.managed
		if conflicts, ok := err.(merge.Conflicts); ok {
			return s.conflicting_fields(live, cfg, key, before, conflicts)
		}
		return nil, err
	}
	s.managed = managed
	s.strip(key)
	if merged == nil {
		merged = live
	}
	s.live = merged
	return nil, nil
}

// conflicting_fields lists the fields of a refused apply per manager. The paths of 4.1.2's
// merge.Conflicts share one buffer (ConflictsFromManagers keeps the iterator's path without a
// copy), so only their managers are taken; the fields are those each of them owns that the
// forced apply changes, which is how merge.Updater finds them.
func (s *object_state) conflicting_fields(live, cfg *typed.TypedValue, key string, managed fieldpath.ManagedFields, conflicts merge.Conflicts) ([]conflict, error) {
	version := fieldpath.APIVersion(s.api_version)
	forced, _, err := s.updater.Apply(live, cfg, version, managed.Copy(), key, true)
	if err != nil {
		return nil, err
	}
	if forced == nil {
		forced = live
	}
	cmp, err := live.Compare(forced)
	if err != nil {
		return nil, err
	}
	cmp = cmp.ExcludeFields(s.updater.IgnoredFields[version])
	changed := cmp.Modified.Union(cmp.Added)
	out := []conflict{}
	seen := map[string]bool{}
	for _, c := range conflicts {
		if seen[c.Manager] {
			continue
		}
		seen[c.Manager] = true
		if vs, ok := managed[c.Manager]; ok {
			vs.Set().Intersection(changed).Iterate(func(p fieldpath.Path) {
				out = append(out, conflict{Manager: c.Manager, Field: p.String()})
			})
		}
	}
	return out, nil
}

// update records a non-apply write of `obj` (the whole new object) by `manager`.
func (s *object_state) update(manager string, obj *typed.TypedValue) error {
	if s.live != nil && len(s.managed) == 0 {
		// internal/skipnonapplied.go: an object nobody manages stays untracked on updates;
		// only a create starts the tracking.
		s.live = obj
		return nil
	}
	base := s.live
	if base == nil {
		meta, _ := obj.AsValue().Unstructured().(map[string]interface{})["metadata"].(map[string]interface{})
		name, _ := meta["name"].(string)
		ns, _ := meta["namespace"].(string)
		var err error
		if base, err = s.pt.FromUnstructured(zero_object(s.api_version, s.kind, name, ns)); err != nil {
			return err
		}
	}
	if err := s.record_update(base, obj, manager); err != nil {
		return err
	}
	s.live = obj
	return nil
}

// record_update gives `manager` (operation Update) the fields that changed from `base` to `obj`.
func (s *object_state) record_update(base, obj *typed.TypedValue, manager string) error {
	// internal/managedfieldsupdater.go: the fields this write changed are computed for a
	// placeholder manager, then joined with what `manager` already had from updates.
	const self = "current-operation"
	managed, err := s.update_managers(base, obj, self)
	if err != nil {
		return err
	}
	s.managed = managed
	s.strip(self)
	key := manager_key(manager, "Update")
	if vs, ok := s.managed[self]; ok {
		delete(s.managed, self)
		if prev, ok := s.managed[key]; ok {
			s.managed[key] = fieldpath.NewVersionedSet(vs.Set().Union(prev.Set()), vs.APIVersion(), vs.Applied())
		} else {
			s.managed[key] = vs
		}
	}
	return nil
}

func (s *object_state) update_managers(live, obj *typed.TypedValue, self string) (fieldpath.ManagedFields, error) {
	_, managed, err := s.updater.Update(live, obj, fieldpath.APIVersion(s.api_version), s.managed.Copy(), self)
	return managed, err
}

// with_server_defaults adds to `x` the fields the server's object `k` has that no request of the
// sequence ever sent and whose parent exists in `x`: the defaults the server added after (apply)
// or before (update) the merge, as kube-apiserver's defaulting does around field management.
func (s *object_state) with_server_defaults(x, k *typed.TypedValue) (*typed.TypedValue, error) {
	xs, err := x.ToFieldSet()
	if err != nil {
		return nil, err
	}
	ks, err := k.ToFieldSet()
	if err != nil {
		return nil, err
	}
	cmp, err := x.Compare(k)
	if err != nil {
		return nil, err
	}
	// Field sets hold leaves and list items, not the structs above them: a path exists in `x`
	// when some path of x's set starts with it.
	x_prefixes := fieldpath.NewSet()
	xs.Iterate(func(p fieldpath.Path) {
		for i := 1; i <= len(p); i++ {
			x_prefixes.Insert(p[:i].Copy())
		}
	})
	// The server adds fields (struct fields, map keys), never list items: a default hangs off a
	// node x has, at a field x lacks.
	candidates := cmp.Added.Union(ks.Difference(xs)).Difference(s.sent)
	roots := fieldpath.NewSet()
	candidates.Iterate(func(p fieldpath.Path) {
		for i := range p {
			if x_prefixes.Has(p[:i+1]) {
				continue
			}
			if p[i].FieldName != nil {
				roots.Insert(p[:i+1].Copy())
			}
			return
		}
	})
	if roots.Empty() {
		return x, nil
	}
	items := roots.Union(fieldpath.NewSet())
	ks.Iterate(func(p fieldpath.Path) {
		for i := 1; i <= len(p); i++ {
			if roots.Has(p[:i]) {
				items.Insert(p.Copy())
				break
			}
		}
	})
	// Each default leaf is merged in as a tree of its own (ExtractItems of 4.1.2 loses the
	// children of inner paths and turns empty maps into nulls).
	k_value := k.AsValue().Unstructured()
	out := x
	var merge_err error
	items.Leaves().Iterate(func(p fieldpath.Path) {
		if merge_err != nil {
			return
		}
		leaf, ok := value_at(k_value, p)
		if !ok {
			return
		}
		tree, err := s.pt.FromUnstructured(value_for(p, leaf))
		if err != nil {
			merge_err = err
			return
		}
		out, merge_err = out.Merge(tree)
	})
	return out, merge_err
}

// value_at returns the value at `p` in an unstructured object.
func value_at(v interface{}, p fieldpath.Path) (interface{}, bool) {
	for _, pe := range p {
		switch {
		case pe.FieldName != nil:
			m, ok := v.(map[string]interface{})
			if !ok {
				return nil, false
			}
			if v, ok = m[*pe.FieldName]; !ok {
				return nil, false
			}
		case pe.Key != nil:
			l, ok := v.([]interface{})
			if !ok {
				return nil, false
			}
			found := false
			for _, item := range l {
				m, ok := item.(map[string]interface{})
				if ok && has_key(m, pe) {
					v, found = item, true
					break
				}
			}
			if !found {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return v, true
}

func has_key(m map[string]interface{}, pe fieldpath.PathElement) bool {
	for _, f := range *pe.Key {
		got, ok := m[f.Name]
		if !ok || !value.Equals(value.NewValueInterface(got), f.Value) {
			return false
		}
	}
	return true
}

// value_for builds the smallest object holding `leaf` at `p` (list-map entries with their keys).
func value_for(p fieldpath.Path, leaf interface{}) interface{} {
	if len(p) == 0 {
		return leaf
	}
	rest := value_for(p[1:], leaf)
	pe := p[0]
	if pe.FieldName != nil {
		return map[string]interface{}{*pe.FieldName: rest}
	}
	item, _ := rest.(map[string]interface{})
	if item == nil {
		item = map[string]interface{}{}
	}
	for _, f := range *pe.Key {
		item[f.Name] = f.Value.Unstructured()
	}
	return []interface{}{item}
}
