//! The devices view: each swap area with its size, use and priority, the block device and
//! disks under it with their I/O, the priority groups; then every zram device in full.
//! `Left`/`Right` move the focus between the two halves, the arrows scroll the focused one.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{Tab, View};
use crate::app::{App, Laid, Pane};
use crate::display as f;
use crate::model::{Snapshot, SwapDevice, Zram};
use crate::ui::kept::Kept;
use crate::ui::panels::split_line;
use crate::ui::theme::Theme;
use crate::ui::widgets::{self, Col};
use crate::ui::widgets::{bold, dim, raw};

pub struct Devices;

/// A pane each (Left and Right move the focus, as in every view with more than one pane).
impl crate::app::Kind for Devices {
    fn panes(&self) -> &'static [&'static str] {
        &["swap", "zram"]
    }
}

/// Its panes: the swap areas' tables, then the zram devices.
pub const SWAP: Pane = Pane {
    view: View::Devices,
    index: 0,
};
pub const ZRAM: Pane = Pane {
    view: View::Devices,
    index: 1,
};

impl Tab for Devices {
    /// The tables scroll until their last swap area is at the top, the zram half until its
    /// last device is; a page is the areas (or devices) shown less one.
    fn lay_out(&self, app: &App, body: Rect, panes: &mut [Laid]) {
        let s = &app.shown;
        let (swap_page, zram_page) = pages(s, app.settings.ascii, body);
        let max = [s.swap.devices.len(), s.zram.len()].map(|n| n.saturating_sub(1));
        for (p, (max, page)) in panes
            .iter_mut()
            .zip(max.into_iter().zip([swap_page, zram_page]))
        {
            *p = Laid { max, page };
        }
    }

    fn draw(&self, buf: &mut Buffer, body: Rect, app: &App, t: &Theme, _kept: &mut Kept) {
        draw(buf, body, app, t);
    }
}

fn title(name: &str, focused: bool, t: &Theme) -> Line<'static> {
    if focused {
        Line::from(Span::styled(format!(" {name} "), t.badge()))
    } else {
        Line::from(bold(t, name.to_string()))
    }
}

const SIZE_COLS: [Col; 8] = [
    Col::new("path", 0, false),
    Col::new("type", 9, false),
    Col::new("size", 10, true),
    Col::new("used", 10, true),
    Col::new("prio", 5, true),
    Col::new("in zswap", 10, true),
    Col::new("in device", 10, true),
    Col::new("elsewhere", 10, true),
];

const IO_COLS: [Col; 8] = [
    Col::new("I/O of", 0, false),
    Col::new("block device", 14, false),
    Col::new("rot", 3, false),
    Col::new("rd IOPS", 7, true),
    Col::new("read/s", 8, true),
    Col::new("wr IOPS", 7, true),
    Col::new("write/s", 8, true),
    Col::new("busy", 6, true),
];

/// What the per-area columns hold, and why some are missing.
fn area_note(t: &Theme, width: usize) -> Vec<Line<'static>> {
    let items = vec![
        vec![dim(
            t,
            "in device: in zram's RAM, or on the disk (zero-filled pages included)",
        )],
        vec![dim(
            t,
            "elsewhere: in zswap, the swap cache, the zero map or zram's backing device",
        )],
        vec![dim(
            t,
            format!(
                "{}: the kernel counts it only for all areas together",
                t.missing()
            ),
        )],
    ];
    widgets::flow(items, width, t.sep(), 0)
}

/// "vda2 on vda", "dm-0 on sda+sdb", "vda", or the missing mark.
fn device_name(d: &SwapDevice) -> String {
    match d.block_device.as_deref() {
        None => f::MISSING.to_string(),
        Some(dev) if d.disks.is_empty() || d.disks == [dev] => dev.to_string(),
        Some(dev) => format!("{dev} on {}", d.disks.join("+")),
    }
}

/// One area's row: its share of zswap, of the device itself and of elsewhere are the model's
/// per-area figures ([`crate::model::AreaSplit`]), missing where the kernel counts only for all
/// areas together.
fn size_row(d: &SwapDevice) -> Vec<String> {
    vec![
        d.path.clone(),
        if d.is_zram {
            "zram".into()
        } else {
            d.kind.clone()
        },
        f::bytes_raw(d.size_bytes),
        f::bytes_raw(d.used_bytes),
        d.priority.to_string(),
        f::bytes(d.split.in_zswap_bytes),
        f::bytes(d.split.in_device_bytes),
        f::bytes(d.split.elsewhere_bytes),
    ]
}

fn io_row(s: &Snapshot, d: &SwapDevice, t: &Theme) -> Vec<String> {
    let known = s.rates.is_some();
    let m = t.missing().to_string();
    let mut row = vec![
        d.path.clone(),
        device_name(d),
        f::yes_no(d.rotational).into(),
    ];
    match &d.io {
        Some(io) => row.extend([
            f::iops(known, io.read_iops),
            f::rate_short(known, io.read_bytes_per_sec),
            f::iops(known, io.write_iops),
            f::rate_short(known, io.write_bytes_per_sec),
            f::percent_rate(known, io.busy_percent),
        ]),
        None => row.extend([m.clone(), m.clone(), m.clone(), m.clone(), m]),
    }
    row
}

/// The priority groups, highest first: the kernel fills a group before the next and stripes
/// pages round-robin over the areas of one group.
fn priority_lines(s: &Snapshot, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let groups = &s.swap.priority_groups;
    if groups.is_empty() {
        return Vec::new();
    }
    let mut items = Vec::with_capacity(groups.len());
    for (i, g) in groups.iter().enumerate() {
        let mut item = Vec::with_capacity(4);
        if i == 0 {
            item.push(dim(t, "priorities, filled highest first: "));
        }
        item.push(bold(t, format!("{} ", g.priority)));
        item.push(raw(g.devices.join(" + ")));
        if g.devices.len() > 1 {
            item.push(Span::styled(" (round-robin)", t.good()));
        }
        items.push(item);
    }
    widgets::flow(items, width, t.sep(), 0)
}

/// What a device's I/O figures are, beside the swap-only ones.
fn io_note(s: &Snapshot, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let known = s.rates.is_some();
    let r = s.rates.as_ref();
    let items = vec![
        vec![dim(
            t,
            "device I/O is all traffic on the device, not only swap",
        )],
        vec![
            dim(t, "swap only, all devices: pswpin "),
            bold(
                t,
                f::rate_short(known, r.and_then(|r| r.pswpin_bytes_per_sec)),
            ),
            dim(t, " pswpout "),
            bold(
                t,
                f::rate_short(known, r.and_then(|r| r.pswpout_bytes_per_sec)),
            ),
        ],
    ];
    widgets::flow(items, width, t.sep(), 0)
}

/// One zram device in full, as lines.
fn zram_card(s: &Snapshot, z: &Zram, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let swap = s
        .swap
        .devices
        .iter()
        .find(|d| d.path == format!("/dev/{}", z.device));
    let mut head = vec![bold(t, z.device.clone())];
    if z.initialized == Some(false) {
        head.push(dim(t, "  not set up (disksize 0)"));
        return vec![Line::from(head)];
    }
    head.push(raw(format!(
        "  {}",
        z.algorithm.clone().unwrap_or_else(|| t.missing().into())
    )));
    head.push(dim(t, "  disksize "));
    head.push(raw(f::bytes(z.disksize_bytes)));
    head.push(dim(
        t,
        match swap {
            Some(d) => format!("  swap, priority {}", d.priority),
            None => "  not used as swap".to_string(),
        },
    ));
    let mut lines = vec![Line::from(head)];
    let kv = |k: &str, v: String| vec![dim(t, format!("{k} ")), bold(t, v)];
    let mut items = vec![
        kv("orig", f::bytes(z.orig_data_bytes)),
        kv("compr", f::bytes(z.compr_data_bytes)),
        vec![
            dim(t, "mem used "),
            Span::styled(f::bytes(z.mem_used_bytes), t.pool()),
        ],
        kv("limit", f::limit(z.mem_limit_bytes)),
        kv("peak", f::bytes(z.mem_used_max_bytes)),
        vec![
            dim(t, "ratio "),
            bold(t, f::ratio(z.effective_ratio)),
            dim(t, " effective ("),
            bold(t, f::ratio(z.compression_ratio)),
            dim(t, " compressor only)"),
        ],
        kv("allocator overhead", f::bytes(z.allocator_overhead_bytes)),
        kv("saves", f::bytes_signed(z.saved_bytes)),
        kv("same-filled", f::pages(z.same_pages)),
        kv("huge", f::pages(z.huge_pages)),
    ];
    let failed = z.io_failed();
    items.push(vec![
        dim(t, "failed reads "),
        Span::styled(
            f::num(z.failed_reads),
            if failed { t.bad() } else { t.bold() },
        ),
        dim(t, " writes "),
        Span::styled(
            f::num(z.failed_writes),
            if failed { t.bad() } else { t.bold() },
        ),
    ]);
    if z.bd_count_bytes.is_some() {
        items.push(vec![
            dim(t, "writeback to "),
            raw(z.backing_dev.clone().unwrap_or_else(|| t.missing().into())),
            dim(t, " holds "),
            bold(t, f::bytes(z.bd_count_bytes)),
            dim(t, " (read "),
            raw(f::bytes(z.bd_reads_bytes)),
            dim(t, ", written "),
            raw(f::bytes(z.bd_writes_bytes)),
            dim(t, ")"),
        ]);
    }
    if let Some(r) = &z.recomp_algorithm {
        items.push(kv(
            "recompression",
            r.split_whitespace().collect::<Vec<_>>().join(" "),
        ));
    }
    lines.extend(widgets::flow(items, width, t.sep(), 2));
    lines
}

/// The devices view.
fn draw(buf: &mut Buffer, area: Rect, app: &App, t: &Theme) {
    let s = &app.shown;
    let width = usize::from(area.width);
    let n = s.swap.devices.len();

    let split = split_line(s, t, width);
    let prio = priority_lines(s, t, width);
    let io_note = if n > 0 {
        io_note(s, t, width)
    } else {
        Vec::new()
    };
    let note = if n > 0 {
        area_note(t, width)
    } else {
        Vec::new()
    };
    let parts = parts(s, t, width, usize::from(area.height));
    let swap_h = parts.iter().sum::<usize>().min(usize::from(area.height)) as u16;
    let swap_area = Rect {
        height: swap_h,
        ..area
    };

    let right = Line::from(vec![
        bold(t, f::bytes(s.swap.used_bytes)),
        dim(t, " used of "),
        raw(f::bytes(s.swap.total_bytes)),
    ]);
    widgets::rule(
        buf,
        Rect {
            height: 1,
            ..swap_area
        },
        title("Swap devices", app.pane() == Some(SWAP), t),
        Some(right),
        t,
    );
    let mut y = 1u16;
    for l in split.iter().take(parts[1]) {
        widgets::put(buf, swap_area, y, l);
        y += 1;
    }
    for l in note.iter().take(parts[2]) {
        widgets::put(buf, swap_area, y, l);
        y += 1;
    }
    if n == 0 {
        widgets::put(
            buf,
            swap_area,
            y,
            &Line::from(dim(t, "no active swap devices")),
        );
        y += 1;
    } else {
        let offset = app.scroll(SWAP).min(n - 1);
        let shown = areas_shown(parts[3]);
        let end = (offset + shown).min(n);
        let size_rows: Vec<Vec<String>> = (offset..end)
            .map(|i| size_row(&s.swap.devices[i]))
            .collect();
        let io_rows: Vec<Vec<String>> = (offset..end)
            .map(|i| io_row(s, &s.swap.devices[i], t))
            .collect();
        let h = (1 + size_rows.len()) as u16;
        for (cols, rows) in [(&SIZE_COLS[..], &size_rows), (&IO_COLS[..], &io_rows)] {
            let r = Rect {
                y: swap_area.y + y,
                height: h.min(swap_area.height.saturating_sub(y)),
                ..swap_area
            };
            widgets::table(buf, r, cols, rows, 0, t);
            y += h;
        }
    }
    for l in prio.iter().take(parts[4]) {
        widgets::put(buf, swap_area, y, l);
        y += 1;
    }
    for l in io_note.iter().take(parts[5]) {
        widgets::put(buf, swap_area, y, l);
        y += 1;
    }

    // zram, right under it, with the rest.
    let zram_area = Rect {
        y: area.y + swap_area.height,
        height: area.height - swap_area.height,
        ..area
    };
    if zram_area.height == 0 {
        return;
    }
    widgets::rule(
        buf,
        Rect {
            height: 1,
            ..zram_area
        },
        title("zram devices", app.pane() == Some(ZRAM), t),
        None,
        t,
    );
    let body = Rect {
        y: zram_area.y + 1,
        height: zram_area.height - 1,
        ..zram_area
    };
    if s.zram.is_empty() {
        widgets::put(buf, body, 0, &Line::from(dim(t, "no zram devices")));
        return;
    }
    let mut y = 0u16;
    let first = app.scroll(ZRAM).min(s.zram.len() - 1);
    for z in s.zram.iter().skip(first) {
        for l in zram_card(s, z, t, width) {
            if y >= body.height {
                return;
            }
            widgets::put(buf, body, y, &l);
            y += 1;
        }
    }
}

/// The lines each part of the swap half gets in `h` rows: rule, split, note, the two tables,
/// priorities, I/O note. When rows are short the notes go first, then the priorities and the
/// split, then the tables share what is left.
fn parts(s: &Snapshot, t: &Theme, width: usize, h: usize) -> [usize; 6] {
    let n = s.swap.devices.len();
    let lines = |v: Vec<Line<'static>>| if n > 0 { v.len() } else { 0 };
    let table_rows = n.max(1);
    let tables = if n > 0 { 2 * (1 + table_rows) } else { 1 };
    // rule, split, note, tables, priorities, I/O note
    let mut parts = [
        1usize,
        split_line(s, t, width).len(),
        lines(area_note(t, width)),
        tables,
        priority_lines(s, t, width).len(),
        lines(io_note(s, t, width)),
    ];
    let zram_need = 1 + zram_lines(s, t, width).max(1);
    // The notes make way for zram's lines, then the tables for zram's first five.
    let mut over = parts
        .iter()
        .sum::<usize>()
        .saturating_sub(h.saturating_sub(zram_need));
    for i in [2, 1, 4, 5] {
        let cut = over.min(parts[i]);
        parts[i] -= cut;
        over -= cut;
    }
    let over = parts
        .iter()
        .sum::<usize>()
        .saturating_sub(h.saturating_sub(zram_need.min(5)));
    if over > 0 && n > 0 {
        // Each table keeps its header and at least one row.
        parts[3] = parts[3].saturating_sub(over).max(4);
    }
    parts
}

/// Swap areas shown in each table when the tables have `table_lines` lines.
fn areas_shown(table_lines: usize) -> usize {
    (table_lines / 2).saturating_sub(1).max(1)
}

/// How far PgUp/PgDn move each half of the view in `area`: a page less one, at least one —
/// swap areas in the tables, zram cards below them.
fn pages(s: &Snapshot, ascii: bool, area: Rect) -> (usize, usize) {
    let t = Theme::new(false, ascii);
    let width = usize::from(area.width);
    let h = usize::from(area.height);
    let parts = parts(s, &t, width, h);
    let swap_page = areas_shown(parts[3]).saturating_sub(1).max(1);
    let mut room = h.saturating_sub(parts.iter().sum::<usize>().min(h) + 1);
    let mut cards = 0usize;
    for z in &s.zram {
        let need = zram_card(s, z, &t, width).len();
        if need > room {
            break;
        }
        room -= need;
        cards += 1;
    }
    (swap_page, cards.saturating_sub(1).max(1))
}

/// Lines all zram cards take at this width.
fn zram_lines(s: &Snapshot, t: &Theme, width: usize) -> usize {
    s.zram.iter().map(|z| zram_card(s, z, t, width).len()).sum()
}
