;;; complex-edit-doctor.el --- M-x complex-edit-doctor: is everything in place?  -*- lexical-binding: t; -*-

;;; Commentary:

;; Like Neovim's `:checkhealth complex_edit': what only Emacs knows (its version, the LSP
;; clients, the executable it starts and its version, the server of the current buffer), then
;; the server's own report of what an edit would use (provider, model and its rules, key
;; present or not, settings and where each came from), shown as the server words it: the LSP
;; command complexEdit.doctor when a server serves this buffer, else `complex-edit doctor
;; --json' run with Emacs's environment.  The report goes to the *complex-edit-doctor* buffer.

;;; Code:

(require 'cl-lib)
(require 'json)
(require 'seq)
(require 'complex-edit)

(declare-function complex-edit-eglot-server-p "complex-edit-eglot" (object))

(defconst complex-edit-doctor--timeout 10
  "Seconds `--version' or the server's report may take.")

(defun complex-edit-doctor--run (command)
  "Run COMMAND (a list): (EXIT-CODE . OUTPUT).
Or (error TEXT) when it does not end in time."
  (with-temp-buffer
    (let ((process (make-process :name "complex-edit-doctor" :buffer (current-buffer)
                                 :command command :connection-type 'pipe :noquery t))
          (deadline (+ (float-time) complex-edit-doctor--timeout)))
      (while (and (process-live-p process) (< (float-time) deadline))
        (accept-process-output process 0.1))
      (if (not (process-live-p process))
          (cons (process-exit-status process) (buffer-string))
        (delete-process process)
        (list 'error (format "did not answer within %d s" complex-edit-doctor--timeout))))))

(defun complex-edit-doctor--executable ()
  "Checks of `complex-edit-executable' and its version; the file found, or nil."
  (let ((found (executable-find (car (complex-edit-program)))))
    (if (not found)
        (list nil `(error ,(format "`%s' is not an executable on exec-path"
                                   complex-edit-executable)
                          "Set complex-edit-executable to /path/to/.venv/bin/complex-edit, \
or install the server with `pipx install .'"))
      (let* ((run (complex-edit-doctor--run (list found "--version")))
             (line (and (consp run) (string-trim (car (split-string (cdr run) "\n"))))))
        (list found
              `(ok ,(format "Executable %s" found))
              (cond ((eq (car run) 'error) `(warn ,(format "`%s --version' %s" found (cadr run))))
                    ((zerop (car run)) `(ok ,(format "Version: %s" line)))
                    (t `(warn ,(format "`%s --version' exited with code %d: %s"
                                       found (car run) line)))))))))

(defun complex-edit-doctor--clients (backend)
  "Checks of the LSP clients and of BACKEND, the current buffer's server."
  `(,(if (or (featurep 'eglot) (locate-library "eglot"))
         `(ok ,(format "eglot available%s" (if (featurep 'eglot) " (loaded)" "")))
       '(info "eglot not found (built into Emacs 29+; `apt install elpa-eglot' or ELPA)"))
    ,(if (or (featurep 'lsp-mode) (locate-library "lsp-mode"))
         `(ok ,(format "lsp-mode available%s" (if (featurep 'lsp-mode) " (loaded)" "")))
       '(info "lsp-mode not found (optional)"))
    ,(cond
      ((null backend)
       '(warn "No complex-edit server in this buffer"
              "Register it (complex-edit-eglot-register or complex-edit-lsp-mode-register) \
and start it with M-x eglot or M-x lsp; see the README."))
      ((and (eq (plist-get backend :name) 'eglot)
            (not (complex-edit-eglot-server-p (plist-get backend :connection))))
       '(warn "The eglot server here is not of class complex-edit-eglot-server"
              "Register it with complex-edit-eglot-register: without it there is no \
progress, no undo boundary, no live preview, and eglot asks Proceed? before an edit of a \
file not visited (the server gives up after applyTimeoutSeconds)."))
      (t `(ok ,(format "Server running for this buffer through %s"
                       (plist-get backend :name)))))))

(defun complex-edit-doctor--ask (backend)
  "The server's report through BACKEND (complexEdit.doctor).
A plist, or (error TEXT)."
  (let ((answer nil)
        (deadline (+ (float-time) complex-edit-doctor--timeout)))
    (funcall (plist-get backend :send)
             `(:command "complexEdit.doctor"
               :arguments [(:textDocument (:uri ,(funcall (plist-get backend :uri))))])
             (lambda (result) (setq answer (complex-edit--plist result)))
             (lambda (err) (setq answer (list 'error (format "%s" (complex-edit--plist err))))))
    (while (and (null answer) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (or answer (list 'error "no answer"))))

(defun complex-edit-doctor--run-doctor (found)
  "The report of FOUND's `doctor --json', a plist, or (error TEXT).
The arguments of `complex-edit-server-args' before `lsp' are kept."
  (let ((run (complex-edit-doctor--run
              `(,found ,@(seq-take-while (lambda (arg) (not (equal arg "lsp")))
                                         complex-edit-server-args)
                       "doctor" "--json")))
        (json-object-type 'plist) (json-array-type 'vector))
    (cond ((eq (car run) 'error) run)
          ((ignore-errors (json-read-from-string (cdr run))))
          (t (list 'error (format "exited with code %d: %s" (car run) (string-trim (cdr run))))))))

(defun complex-edit-doctor--server (backend found)
  "The checks of the server's report: through BACKEND, else by running FOUND."
  (let ((report (cond (backend (complex-edit-doctor--ask backend))
                      (found (complex-edit-doctor--run-doctor found)))))
    `(,@(unless backend
          '((info "No server attached here: the report below is `complex-edit doctor' with \
Emacs's environment (complex-edit-settings apply once the server runs)")))
      ,@(cond
         ((null report)
          '((warn "No report from the server" "Run `complex-edit doctor' in a terminal.")))
         ((eq (car report) 'error)
          `((warn ,(format "The server's report failed: %s" (cadr report))
                  "Run `complex-edit doctor' in a terminal.")))
         (t (mapcar (lambda (check)
                      (let ((advice (append (plist-get check :advice) nil)))
                        `(,(intern (plist-get check :level)) ,(plist-get check :text)
                          ,@(when advice (list (string-join advice " "))))))
                    (plist-get report :checks)))))))

(defun complex-edit-doctor-checks ()
  "All checks, each (LEVEL TEXT [ADVICE]) with LEVEL ok, info, warn or error."
  (let ((backend (run-hook-with-args-until-success 'complex-edit--backend-finders))
        (executable (complex-edit-doctor--executable)))
    `((info ,(format "Emacs %s" emacs-version))
      ,@(unless (>= emacs-major-version 28) '((error "Emacs 28 or newer is needed")))
      ,@(complex-edit-doctor--clients backend)
      ,@(cdr executable)
      ,@(complex-edit-doctor--server backend (car executable)))))

;;;###autoload
(defun complex-edit-doctor ()
  "Check the executable, the server and what an edit would use.
The report goes to the *complex-edit-doctor* buffer."
  (interactive)
  (let ((checks (complex-edit-doctor-checks)))
    (with-current-buffer (get-buffer-create "*complex-edit-doctor*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert "complex-edit doctor\n\n")
        (pcase-dolist (`(,level ,text ,advice) checks)
          (insert (propertize (format "%-6s" (upcase (symbol-name level)))
                              'face (pcase level ('ok 'success) ('warn 'warning)
                                           ('error 'error) (_ 'shadow)))
                  text "\n")
          (when advice (insert "      " advice "\n"))))
      (special-mode)
      (goto-char (point-min))
      (display-buffer (current-buffer)))
    (let ((problems (cl-count-if (lambda (check) (memq (car check) '(warn error))) checks)))
      (message "complex-edit doctor: %s" (if (zerop problems) "all good"
                                           (format "%d problem(s); see *complex-edit-doctor*"
                                                   problems))))
    checks))

(provide 'complex-edit-doctor)

;;; complex-edit-doctor.el ends here
