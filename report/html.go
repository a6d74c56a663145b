package report

import (
	"embed"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/replay"
)

// The HTML report (-o html) is one self-contained page: the styles are inline, the charts
// are inline SVG rendered in Go (html_chart.go), there is no script, and a
// Content-Security-Policy of default-src 'none' keeps the browser from fetching anything,
// so the file opens offline and shows the same thing anywhere. Like every other format it
// only prints what the result carries: verdicts are the results' own (replay and storm
// policies[].verdict, probe recommendation.verdict, check's findings and passed), never
// graded here. Every string goes through html/template, which escapes it for where it
// lands; the only markup not written by the template is the charting library's SVG, whose
// text it escapes itself.

//go:embed html/page.html.tmpl html/style.css
var htmlFiles embed.FS

var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"join": strings.Join,
	}).ParseFS(htmlFiles, "html/page.html.tmpl"))
})

var htmlCSS = sync.OnceValue(func() template.CSS {
	b, err := htmlFiles.ReadFile("html/style.css")
	if err != nil {
		panic(err)
	}
	return template.CSS(b)
})

// htmlDoc is one page: the title and its facts, the verdicts that lead it, then sections.
type htmlDoc struct {
	Title       string
	Subtitle    []string
	Description string
	Lead        []htmlVerdict
	Sections    []htmlSection
	CSS         template.CSS
}

// htmlVerdict is one verdict as the result states it: its level (a CSS class: lvl-good,
// lvl-bad, ...), its mark, whose it is, its first clause and the others.
type htmlVerdict struct {
	Level, Mark, Name, Text string
	Reasons                 []htmlReason
}

type htmlReason struct{ Level, Mark, Text string }

// htmlSection is a part of the page (the demo has one per stage): a heading, a sentence,
// its own verdicts and its blocks in order.
type htmlSection struct {
	ID, Title, Intro string
	Lead             []htmlVerdict
	Blocks           []htmlBlock
}

// htmlBlock is one element of a section; exactly one field is set.
type htmlBlock struct {
	Heading string
	Para    *htmlPara
	List    *htmlList
	KV      []htmlKV
	Table   *htmlTable
	Chart   *htmlChart
	// Pre is verbatim text: an emitted program or configuration file.
	Pre *htmlPre
}

// htmlPre is a block of verbatim text in a language ("python", "yaml").
type htmlPre struct{ Lang, Text string }

type htmlPara struct{ Class, Text string }

type htmlList struct {
	Class string
	Items []string
}

type htmlKV struct{ Key, Value, Note string }

type htmlTable struct {
	Caption string
	Headers []string
	Rows    [][]htmlCell
}

// htmlCell is a table cell; Head makes the first cell of a row its header, Class is "num"
// for numbers (right-aligned) or a level class.
type htmlCell struct {
	Text, Class, Mark string
	Head              bool
}

// htmlChart is one figure: an SVG drawn by the charting library, with its title and the
// caption that says what it spans.
type htmlChart struct {
	ID, Title, Caption string
	SVG                template.HTML
}

func para(class, text string) htmlBlock { return htmlBlock{Para: &htmlPara{Class: class, Text: text}} }

func list(class string, items []string) htmlBlock {
	return htmlBlock{List: &htmlList{Class: class, Items: items}}
}

// textTable makes a table of strings: the first column heads its row, numeric columns are
// right-aligned.
func textTable(caption string, headers []string, rows [][]string, numeric func(col int) bool) *htmlTable {
	t := &htmlTable{Caption: caption, Headers: headers}
	for _, r := range rows {
		cells := make([]htmlCell, len(r))
		for i, s := range r {
			cells[i] = htmlCell{Text: s, Head: i == 0}
			if i > 0 && numeric != nil && numeric(i) {
				cells[i].Class = "num"
			}
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// writeHTML renders a page.
func writeHTML(w io.Writer, d htmlDoc) error {
	d.CSS = htmlCSS()
	htmlDocSafe(&d)
	var b strings.Builder
	if err := htmlTemplate().ExecuteTemplate(&b, "page", d); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// replayVerdictHTML is a replay or storm policy's verdict, as carried in the result.
func replayVerdictHTML(name string, v replay.Verdict) htmlVerdict {
	h := htmlVerdict{Level: string(v.Level), Mark: v.Level.Symbol(), Name: name}
	for i, r := range v.Reasons {
		if i == 0 {
			h.Text = r.Text
			continue
		}
		h.Reasons = append(h.Reasons, htmlReason{Level: string(r.Level), Mark: r.Level.Symbol(), Text: r.Text})
	}
	return h
}

// probeVerdictHTML is the probe's recommendation.verdict.
func probeVerdictHTML(v profile.Verdict) htmlVerdict {
	h := htmlVerdict{Level: string(v.Level), Mark: v.Level.Symbol()}
	for i, r := range v.Reasons {
		if i == 0 {
			h.Text = r.Text
			continue
		}
		h.Reasons = append(h.Reasons, htmlReason{Level: string(r.Level), Mark: r.Level.Symbol(), Text: r.Text})
	}
	return h
}
