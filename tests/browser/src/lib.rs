//! Helpers for the browser tests: a loopback static file server for `site/dist`, chromedriver
//! and a WebDriver session on Debian's Chromium.
