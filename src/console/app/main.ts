document.title = "prx console";
