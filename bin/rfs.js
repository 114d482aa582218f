#!/usr/bin/env node
// The published entry point: a shim so that the built bundle can change shape freely.
import '../dist/main.js';
