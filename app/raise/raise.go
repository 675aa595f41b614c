//go:build linux && cgo

// Package raise hands the activation token of a notification click to GTK
// before the desktop window is presented (issue 17 item 10). On Wayland a
// window may take focus only with an xdg-activation token that the
// compositor issued for a user action; the notification service sends one
// with the click (ActivationToken, Desktop Notifications spec 1.2). GTK
// 3.24 presents a window with the token set on its display, as
// GtkApplication does for an activation: gdk_wayland_display_set_startup_notification_id
// on Wayland (used by xdg_activation_v1.activate), gdk_x11_display_set_startup_notification_id
// on X11 (its time for focus stealing prevention). Whether the window
// comes to the front stays the compositor's decision.
package raise

/*
#cgo pkg-config: gtk+-3.0
#include <stdlib.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_WAYLAND
#include <gdk/gdkwayland.h>
#endif
#ifdef GDK_WINDOWING_X11
#include <gdk/gdkx.h>
#endif

static gboolean weald_set_token(gpointer data) {
	char *token = data;
	GdkDisplay *d = gdk_display_get_default();
	if (d != NULL) {
#ifdef GDK_WINDOWING_WAYLAND
		if (GDK_IS_WAYLAND_DISPLAY(d)) gdk_wayland_display_set_startup_notification_id(d, token);
#endif
#ifdef GDK_WINDOWING_X11
		if (GDK_IS_X11_DISPLAY(d)) gdk_x11_display_set_startup_notification_id(d, token);
#endif
	}
	free(token);
	return G_SOURCE_REMOVE;
}

static void weald_queue_token(char *token) { g_idle_add(weald_set_token, token); }

// For the test: GTK on the X display of $DISPLAY, its pending work, what it holds.
static int weald_init(void) { return gtk_init_check(NULL, NULL); }
static void weald_iterate(void) { while (g_main_context_iteration(NULL, FALSE)) {} }
static const char *weald_x11_startup_id(void) {
#ifdef GDK_WINDOWING_X11
	GdkDisplay *d = gdk_display_get_default();
	if (d != NULL && GDK_IS_X11_DISPLAY(d)) return gdk_x11_display_get_startup_notification_id(d);
#endif
	return NULL;
}
*/
import "C"

import "strings"

// WithToken sets token on GTK's display, on GTK's main loop, before what
// is queued after it there: call it before asking Wails to show the window
// (runtime.WindowUnminimise and WindowShow queue their work the same way,
// with g_idle_add). An empty token, or one holding a NUL, does nothing.
func WithToken(token string) {
	if token == "" || strings.IndexByte(token, 0) >= 0 {
		return
	}
	C.weald_queue_token(C.CString(token))
}

func gtkInit() bool { return C.weald_init() != 0 }

func iterate() { C.weald_iterate() }

func x11StartupID() string {
	p := C.weald_x11_startup_id()
	if p == nil {
		return ""
	}
	return C.GoString(p)
}
