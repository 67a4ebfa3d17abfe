from speeduptest.command import entry_point

raise SystemExit(entry_point())
