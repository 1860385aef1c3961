from twsrt.cli import main

main()
