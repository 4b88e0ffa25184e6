package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/beam/internal/beamtest"
)

// TestDockerfile: beam/Dockerfile exists and agrees with the module and the README —
// its Go image is the go.mod's Go version, its Beam image the go.mod's Beam SDK
// version; it builds ./cmd/ikpca-beam, which exists; every target the README's docker
// commands name is a stage of it, and those commands build it from the repository's
// root (-f beam/Dockerfile), the context the module's replace of the core (../) needs.
// (A check of the file, not a build: docker builds need a daemon and the images'
// registry, which the tests do not have.)
func TestDockerfile(t *testing.T) {
	docker, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatalf("the Dockerfile: %v", err)
	}
	mod := beamtest.ReadFile(t, "../../go.mod")
	readme := beamtest.ReadFile(t, "../../README.md")
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	beamVersion := regexp.MustCompile(`github.com/apache/beam/sdks/v2 v(\S+)`).FindSubmatch(mod)
	if goVersion == nil || beamVersion == nil {
		t.Fatal("go.mod names no Go or Beam version")
	}
	text := string(docker)
	for _, want := range []string{"ARG GO_VERSION=" + string(goVersion[1]), "ARG BEAM_VERSION=" + string(beamVersion[1]), "./cmd/ikpca-beam", "COPY beam/go.mod beam/go.sum beam/"} {
		if !strings.Contains(text, want) {
			t.Errorf("the Dockerfile has no %q", want)
		}
	}
	if _, err := os.Stat("../../cmd/ikpca-beam/main.go"); err != nil {
		t.Error(err)
	}
	stages := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^FROM \S+ AS (\S+)$`).FindAllStringSubmatch(text, -1) {
		stages[m[1]] = true
	}
	builds := regexp.MustCompile(`docker build ([^\n]*)`).FindAllStringSubmatch(string(readme), -1)
	if len(builds) == 0 {
		t.Fatal("the README has no docker build command")
	}
	for _, b := range builds {
		cmd := b[1]
		if !strings.Contains(cmd, "-f beam/Dockerfile") || !strings.HasSuffix(strings.TrimSpace(cmd), " .") {
			t.Errorf("README: docker build %s: want -f beam/Dockerfile and the root as context", cmd)
		}
		target := regexp.MustCompile(`--target (\S+)`).FindStringSubmatch(cmd)
		if target == nil || !stages[target[1]] {
			t.Errorf("README: docker build %s: no target, or not a stage of the Dockerfile (%v)", cmd, stages)
		}
	}
}
