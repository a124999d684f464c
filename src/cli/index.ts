process.stdout.write('ralph-action\n')
