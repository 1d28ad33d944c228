package main

import (
	"fmt"
	"math"
	"strings"
)

// svg draws p50 latency against breadth for every way, one panel per deep operation, on a
// logarithmic latency axis (per-parent is orders of magnitude above the others at breadth 50).
// Hand-rolled so the benchmark needs no plotting library.
func (rep *report) svg() string {
	const (
		panelW, panelH = 300, 260
		left, top      = 60, 40
		plotW, plotH   = 220, 170
	)
	colors := map[string]string{wayBatched: "#1f77b4", wayPerParent: "#d62728", wayFloor: "#2ca02c", wayReplay: "#9467bd"}
	lo, hi := rep.p50Decades()
	y := func(v float64) float64 {
		return top + plotH - plotH*(math.Log10(math.Max(v, lo))-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))
	}
	bs := rep.cfg.breadths
	x := func(i int) float64 {
		if len(bs) == 1 {
			return left + plotW/2
		}
		return left + plotW*float64(i)/float64(len(bs)-1)
	}
	var b strings.Builder
	width := panelW * len(deepOps)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, panelH+30)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, panelH+30)
	for p, o := range deepOps {
		fmt.Fprintf(&b, `<g transform="translate(%d,0)">`+"\n", p*panelW)
		fmt.Fprintf(&b, `<text x="%d" y="20" font-weight="bold">%s</text>`+"\n", left, o.id+": p50 ms vs breadth")
		for v := lo; v <= hi*1.0001; v *= 10 {
			fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n",
				left, left+plotW, y(v), y(v), left-5, y(v)+4, v)
		}
		for i, bth := range bs {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(i), top+plotH+15, bth)
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>`+"\n", left, top, plotW, plotH)
		for _, way := range ways {
			var pts []string
			for i, bth := range bs {
				v := float64(rep.deep[o.id][bth][way].p50.Microseconds()) / 1000
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x(i), y(v), colors[way])
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), colors[way])
		}
		b.WriteString("</g>\n")
	}
	for i, way := range ways {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			left+i*140, panelH+10, colors[way], left+i*140+16, panelH+20, way)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">breadth (top-level parents); latency axis logarithmic</text>`+"\n", width-10, panelH+20)
	b.WriteString("</svg>\n")
	return b.String()
}

// p50Decades are the powers of ten around every p50 the plot shows (ms): the latency axis.
func (rep *report) p50Decades() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, o := range deepOps {
		for _, b := range rep.cfg.breadths {
			for _, way := range ways {
				v := float64(rep.deep[o.id][b][way].p50.Microseconds()) / 1000
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	lo = math.Pow(10, math.Floor(math.Log10(math.Max(lo, 0.1))))
	hi = math.Pow(10, math.Ceil(math.Log10(math.Max(hi, lo*10))))
	return lo, hi
}
