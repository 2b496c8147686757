package bench

import (
	"maps"
	"reflect"
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
)

// TestReseedMapsKeepsContents checks that remaking a workload's store maps
// for the simulated CPU changes their seeds only: every configuration
// holds a new map with the same entries.
func TestReseedMapsKeepsContents(t *testing.T) {
	scs, err := scenarios.ByName("multistore-1000")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scs[0].Build(3)
	if err != nil {
		t.Fatal(err)
	}
	cfgs := append(w.Configs[:len(w.Configs):len(w.Configs)], w.Next)
	var before []map[string]certstore.StoreConfig
	for _, cfg := range cfgs {
		if len(cfg.Stores) == 0 {
			t.Fatal("multistore-1000 has a configuration without stores: pick another scenario")
		}
		before = append(before, cfg.Stores)
	}
	reseedMaps(w)
	for i, cfg := range cfgs {
		if reflect.ValueOf(cfg.Stores).Pointer() == reflect.ValueOf(before[i]).Pointer() {
			t.Errorf("configuration %d: the map was not remade", i)
		}
		if !maps.Equal(before[i], cfg.Stores) {
			t.Errorf("configuration %d: entries changed: %v, then %v", i, before[i], cfg.Stores)
		}
	}
}
