;;; demo-init.el --- the set-up of the README's screenshots (tools/screenshots.py)  -*- lexical-binding: t; -*-

;; What a user's init file would hold, with the paths given by the screenshot script.

(setq inhibit-startup-screen t
      make-backup-files nil
      auto-save-default nil
      native-comp-deferred-compilation nil
      warning-minimum-level :error)

(add-to-list 'load-path (getenv "COMPLEX_EDIT_DEMO_CLIENT"))
(require 'complex-edit)
(setq complex-edit-executable (getenv "COMPLEX_EDIT_DEMO_EXE"))
(complex-edit-eglot-register '(python-mode text-mode))
(add-hook 'python-mode-hook #'eglot-ensure)
;; `eglot-ensure' connects after the first command; a script starts with none.
(add-hook 'emacs-startup-hook
          (lambda ()
            (dolist (buffer (buffer-list))
              (with-current-buffer buffer
                (when (derived-mode-p 'python-mode)
                  (apply #'eglot (eglot--guess-contact)))))))

;;; demo-init.el ends here
