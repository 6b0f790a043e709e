from privamp.cli import main

raise SystemExit(main())
