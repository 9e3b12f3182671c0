//! The display probe and the headed rule (limitation 8: no silent headless fallback).

use abx_host::{DisplayProbe, DisplayReason, Headed, HostError, Screen, choose_display};

#[test]
fn the_probe_finds_a_display_then_xvfb_then_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let xvfb = dir.path().join("Xvfb");
    std::fs::write(&xvfb, "#!/bin/sh\n").expect("write");
    let mode = <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755);
    std::fs::set_permissions(&xvfb, mode).expect("chmod");
    let path = dir.path().to_string_lossy().into_owned();
    assert_eq!(
        DisplayProbe::from_vars([("DISPLAY", ":5"), ("PATH", path.as_str())]).screen(),
        Screen::Window {
            variable: "DISPLAY".into()
        }
    );
    assert_eq!(
        DisplayProbe::from_vars([("PATH", path.as_str())]).screen(),
        Screen::Virtual { xvfb }
    );
    assert_eq!(
        DisplayProbe::from_vars([("PATH", "/nonexistent")]).screen(),
        Screen::None
    );
}

#[test]
fn asking_for_a_window_without_a_screen_fails_instead_of_running_headless() {
    let err = choose_display(&Screen::None, Headed::Headed, false, false)
        .expect_err("no silent fallback");
    assert!(matches!(err, HostError::NoScreen { .. }), "{err}");
    // Auto falls back, and says so.
    let auto = choose_display(&Screen::None, Headed::Auto, false, false).expect("auto");
    assert!(!auto.headed);
    assert_eq!(auto.reason, DisplayReason::NoScreen);
    assert!(auto.to_string().contains("no screen"), "{auto}");
    // A person must log in: a screen, or a live view, or an error.
    assert!(choose_display(&Screen::None, Headed::Headless, true, false).is_err());
    let live = choose_display(&Screen::None, Headed::Auto, true, true).expect("live view");
    assert_eq!((live.headed, live.reason), (false, DisplayReason::LiveView));
    let virtual_display = Screen::Virtual {
        xvfb: "/usr/bin/Xvfb".into(),
    };
    let headed = choose_display(&virtual_display, Headed::Auto, false, false).expect("xvfb");
    assert!(headed.headed);
    assert!(matches!(
        headed.reason,
        DisplayReason::VirtualDisplay { .. }
    ));
    let asked = choose_display(&virtual_display, Headed::Headless, false, false).expect("headless");
    assert_eq!(
        (asked.headed, asked.reason),
        (false, DisplayReason::AskedHeadless)
    );
}

#[test]
fn a_human_login_needs_a_display_or_the_live_view_not_just_xvfb() {
    let xvfb_only = Screen::Virtual {
        xvfb: "/usr/bin/Xvfb".into(),
    };
    let err = choose_display(&xvfb_only, Headed::Auto, true, false)
        .expect_err("a window on Xvfb is one nobody sees");
    assert!(matches!(err, HostError::NoScreen { .. }), "{err}");
    // With the live view, the person watches a headed browser on the private display.
    let live = choose_display(&xvfb_only, Headed::Auto, true, true).expect("live view");
    assert_eq!((live.headed, live.reason), (true, DisplayReason::LiveView));
    // A real display is still a window.
    let window = Screen::Window {
        variable: "DISPLAY".into(),
    };
    let shown = choose_display(&window, Headed::Auto, true, false).expect("window");
    assert!(shown.headed);
    assert!(matches!(shown.reason, DisplayReason::Window { .. }));
}
