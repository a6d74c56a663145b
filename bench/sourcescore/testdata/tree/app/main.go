// Package app is the scorer's fixture: three calls whose truth labels.tsv states.
package app

import (
	"net/http"
	"time"
)

var bounded = &http.Client{Timeout: 10 * time.Second}

func fetch(url string) {
	http.Get(url)
	bounded.Get(url)
	req, _ := http.NewRequest("GET", url, nil)
	http.DefaultClient.Do(req)
}

func notACall() {
	_ = bounded
}
